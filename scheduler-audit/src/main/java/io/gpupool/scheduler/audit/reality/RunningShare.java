package io.gpupool.scheduler.audit.reality;

/**
 * One part's share of one GPU while the sink reported it running: milli-GPU from its ALLOCATE,
 * [fromMs, toMs] from its STARTED to its end ({@code open}: still running at the end of the history).
 */
public record RunningShare(String gpu, String nodeId, String jobId, PartKey part, int milli, long fromMs, long toMs,
                    boolean open) {

    public String describe() {
        return "job " + jobId + " placement " + part.placementId() + " " + milli + " milli running from "
                + Moments.at(fromMs) + (open ? " to the end of the history" : " to " + Moments.at(toMs));
    }
}
