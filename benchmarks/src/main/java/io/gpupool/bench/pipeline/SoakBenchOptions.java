package io.gpupool.bench.pipeline;

import java.nio.file.Path;
import java.util.Properties;

/**
 * What {@code gpupool bench soak} runs.
 *
 * @param jobs          jobs submitted and finished through both stages
 * @param reportEvery   finished jobs between the report lines (live jobs, state bytes, heap after GC, DLQ)
 * @param progressEvery finished jobs between the shorter progress lines
 * @param inFlight      jobs submitted and not yet finished at most (closed loop)
 * @param retentionMs   the engine's finished-job-retention-ms: short, so that records expire during the run
 */
public record SoakBenchOptions(String bootstrapServers, String registryUrl, Properties clientOverrides, long jobs,
                               long reportEvery, long progressEvery, int nodes, int gpusPerNode, int leaves,
                               int inFlight, long retentionMs, Path stateDir) {
    public SoakBenchOptions {
        if (jobs < 1 || reportEvery < 1 || progressEvery < 1 || nodes < 1 || gpusPerNode < 1 || leaves < 1
                || inFlight < 1 || retentionMs < 1) {
            throw new IllegalArgumentException("jobs, report intervals, nodes, GPUs, leaves, in-flight jobs and the"
                    + " retention must be positive");
        }
    }
}
