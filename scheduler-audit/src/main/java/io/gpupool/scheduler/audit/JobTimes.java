package io.gpupool.scheduler.audit;

import java.util.Set;

/**
 * One job's life in a (recorded or re-run) history, times in epoch ms, -1 when it did not happen.
 *
 * @param finalOutcome the outcome of its last decision; COMPLETED or FAILED for a job that ran to its end
 * @param placement the nodes and GPUs of its last placement, as text ("n1[0,1] n2[0,1]")
 * @param reasons   the distinct reason codes of its decisions, in order, joined by '|'
 */
public record JobTimes(String jobId, String pool, String tenant, int nodes, int gpusPerNode, long submitMs,
                       long startMs, long endMs, String finalOutcome, String placement, String reasons,
                       int preemptions) {

    /** Final outcomes of a job that ran to its end (RELEASED: a release whose reason named neither). */
    public static final String COMPLETED = "COMPLETED";
    public static final String FAILED = "FAILED";
    private static final Set<String> RAN_TO_END = Set.of(COMPLETED, FAILED, "RELEASED");

    public long queueDelayMs() {
        return startMs < 0 || submitMs < 0 ? -1 : startMs - submitMs;
    }

    public long jctMs() {
        return endMs < 0 || submitMs < 0 || !RAN_TO_END.contains(finalOutcome) ? -1 : endMs - submitMs;
    }
}
