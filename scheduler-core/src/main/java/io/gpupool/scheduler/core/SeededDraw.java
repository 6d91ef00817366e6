package io.gpupool.scheduler.core;

/**
 * The engine's only randomness, for the random policy and random ties: a hash of seed, job and
 * node, so that no random state needs a snapshot and every replay draws the same.
 */
final class SeededDraw {
    private final long seed;
    private final boolean randomTies;

    SeededDraw(final long seed, final boolean randomTies) {
        this.seed = seed;
        this.randomTies = randomTies;
    }

    /** The job's seeded draw for node {@code slot}: uniform over longs, the same on every replay. */
    long draw(final JobSpec job, final int slot) {
        return mix(mix(seed ^ mix(job.jobId().hashCode())) + slot);
    }

    /** Tie-breaker between equally scored nodes: pool order, or a seeded draw with random-ties. */
    long tie(final JobSpec job, final int slot) {
        return randomTies ? draw(job, slot) : slot;
    }

    /**
     * Between equally scored (node, GPU) choices for a share: the fuller GPU (as FGD's BestFit picks
     * the GPU), then pool order, or with random-ties a seeded draw.
     */
    long shareTie(final JobSpec job, final NodeState n, final int gpuFree) {
        if (randomTies) {
            return ((long) gpuFree << 52) | (draw(job, n.slot) >>> 12); // the fuller GPU, then a draw
        }
        return ((long) gpuFree << 32) | n.slot;
    }

    /** SplitMix64's finaliser. */
    static long mix(final long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
