package io.gpupool.bench.cost;

import java.nio.file.Path;
import java.util.Properties;

/**
 * What {@code gpupool bench cost} runs.
 *
 * @param jobs       measured requests: 1-GPU job submits, each one decided request
 * @param warmupJobs requests through the same loop before the measurement starts (JIT, topic and store creation)
 * @param inFlight   requests submitted and not yet finished at most (closed loop)
 * @param complete   the bench is the sink and completes every placed job at once, so each request costs its
 *                   whole life (submit, PLACED, COMPLETED event, RELEASED); false: placement only, and the
 *                   pool must hold every job
 * @param storeCalls count state-store calls (Streams' DEBUG metrics, see {@link StoreOps}); they cost CPU of
 *                   their own, which the profile then shows under metrics
 * @param profile    record the scheduler's threads with JFR during the measurement and print the CPU shares
 * @param backlog    0: the closed loop above; more: the measured requests are a queue of this many waiting jobs
 *                   in a pool held full (one 1-GPU job on every GPU), each started by a release and completed at
 *                   once, so that a request's cost is measured with the queue this deep
 * @param retentionMs how long a finished job stays in the placer's job book (the engine's
 *                   {@code finished-job-retention-ms}, 0 keeping it forever); -1: the engine's default (7 days), so
 *                   no job of the run expires and a request's cost ends at its release. Shorter than the run,
 *                   each measured request also pays for an earlier job's expiry, as every job does once in a
 *                   long-running pool
 * @param restart    after the measurement, stop the scheduler cleanly and start it again on its state directory,
 *                   and print how many journal entries its restore re-applied (those after the pool's last
 *                   snapshot) and how long it took until the pool's engine was back
 */
public record CostBenchOptions(String bootstrapServers, String registryUrl, Properties clientOverrides, int jobs,
                               int warmupJobs, int inFlight, boolean complete, int nodes, int gpusPerNode, int leaves,
                               boolean storeCalls, boolean profile, Path stateDir, int backlog,
                               long retentionMs, boolean restart) {
    public CostBenchOptions {
        if (backlog < 0 || backlog > 0 && (backlog < jobs || !complete)) {
            throw new IllegalArgumentException("a backlog must hold at least the measured jobs (" + jobs + "), and its"
                    + " jobs are completed (no --no-complete); got --backlog " + backlog);
        }
        if (retentionMs < -1) {
            throw new IllegalArgumentException("the retention is -1 (the engine's default), 0 (kept forever) or more ms;"
                    + " got " + retentionMs);
        }
        if (jobs < 1 || warmupJobs < 0 || inFlight < 1 || nodes < 1 || gpusPerNode < 1 || leaves < 1) {
            throw new IllegalArgumentException("jobs, in-flight jobs, nodes, GPUs and leaves must be positive and the"
                    + " warm-up not negative");
        }
        if (!complete && (long) nodes * gpusPerNode < (long) jobs + warmupJobs) {
            throw new IllegalArgumentException("without completions the pool must hold every job: " + nodes + " nodes x "
                    + gpusPerNode + " GPUs < " + ((long) jobs + warmupJobs) + " jobs (raise --nodes)");
        }
    }
}
