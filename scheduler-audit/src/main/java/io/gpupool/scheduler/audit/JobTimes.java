package io.gpupool.scheduler.audit;

/**
 * One job's life in a (recorded or re-run) history, times in epoch ms, -1 when it did not happen.
 *
 * @param placement the nodes and GPUs of its last placement, as text ("n1[0,1] n2[0,1]")
 * @param reasons   the distinct reason codes of its decisions, in order, joined by '|'
 */
public record JobTimes(String jobId, String pool, String tenant, int nodes, int gpusPerNode, long submitMs,
                       long startMs, long endMs, String finalOutcome, String placement, String reasons,
                       int preemptions) {

    public long queueDelayMs() {
        return startMs < 0 || submitMs < 0 ? -1 : startMs - submitMs;
    }

    public long jctMs() {
        return endMs < 0 || submitMs < 0 || !"RELEASED".equals(finalOutcome) ? -1 : endMs - submitMs;
    }
}
