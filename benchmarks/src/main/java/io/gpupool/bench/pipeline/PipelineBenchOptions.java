package io.gpupool.bench.pipeline;

import java.nio.file.Path;
import java.util.Properties;

/**
 * What {@code gpupool bench pipeline} runs.
 *
 * @param rate            job requests offered per second (open loop)
 * @param warmupS         seconds of load before measuring (JIT, caches, the pool filling up)
 * @param measureS        seconds measured
 * @param jobRuntimeMs    how long the bench (acting as the sink) lets a placed job run before it completes
 * @param passthroughRecords records the pass-through app is timed on
 * @param drainRecords    job requests the scheduler drain is timed on
 */
public record PipelineBenchOptions(String bootstrapServers, String registryUrl, Properties clientOverrides, int nodes,
                                   int gpusPerNode, int leaves, int rate, int warmupS, int measureS, long jobRuntimeMs,
                                   int passthroughRecords, int drainRecords, Path stateDir) {
    public PipelineBenchOptions {
        if (nodes < 1 || gpusPerNode < 1 || leaves < 1 || rate < 1 || warmupS < 0 || measureS < 1 || jobRuntimeMs < 0
                || passthroughRecords < 1 || drainRecords < 1) {
            throw new IllegalArgumentException("nodes, GPUs, leaves, rate, measure seconds, pass-through and drain records must be"
                    + " positive; warm-up and job runtime must not be negative");
        }
    }
}
