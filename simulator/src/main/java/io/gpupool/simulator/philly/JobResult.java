package io.gpupool.simulator.philly;

/**
 * What happened to one Philly job: seconds since the Unix epoch; {@code start} and {@code end}
 * are -1 for a job the engine rejected (it can never fit its virtual cluster).
 */
public record JobResult(String jobId, String virtualCluster, int gpus, long submit, long start, long end, long duration) {

    public boolean rejected() {
        return start < 0;
    }

    public long queueingSeconds() {
        return start - submit;
    }

    public long completionSeconds() {
        return end - submit;
    }
}
