package io.gpupool.bench.engine;

import io.gpupool.scheduler.core.ScoringPolicy;

/**
 * What the engine benchmark runs: the pool shape, how many timed placements of each kind, the
 * warm-up before timing, the scoring policy and the seed of the release traffic.
 */
public record EngineBenchOptions(int nodes, int leaves, int gpusPerNode, int singleOps, int gangOps,
                                 int warmupOps, ScoringPolicy policy, long seed) {
    public EngineBenchOptions {
        if (nodes < 8 || leaves < 1 || nodes % leaves != 0 || gpusPerNode < 1 || gpusPerNode > 64) {
            throw new IllegalArgumentException("need nodes >= 8, a whole number of nodes per leaf, and 1..64 GPUs per node; got "
                    + nodes + " nodes, " + leaves + " leaves, " + gpusPerNode + " GPUs");
        }
        if (nodes / leaves < 8) {
            throw new IllegalArgumentException("the 8x8 gang needs at least 8 nodes per leaf; got " + nodes / leaves);
        }
        if (singleOps < 0 || gangOps < 0 || warmupOps < 0) {
            throw new IllegalArgumentException("operation counts must not be negative");
        }
    }

    /** The pool: 4,096 nodes x 8 GPUs over 64 leaves; quick enough for a default run. */
    public static EngineBenchOptions defaults() {
        return new EngineBenchOptions(4096, 64, 8, 400_000, 60_000, 100_000, ScoringPolicy.BEST_FIT, 42);
    }
}
