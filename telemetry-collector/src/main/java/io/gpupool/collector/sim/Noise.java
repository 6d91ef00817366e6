package io.gpupool.collector.sim;

/**
 * Deterministic noise: a SplitMix64 hash of (seed, tick, node, item, field) mapped to [0, 1).
 * Stateless, so any node can be generated in any order or thread and still read the same.
 */
final class Noise {
    private Noise() {
    }

    static double unit(final long seed, final long tick, final int node, final int item, final int field) {
        long z = seed;
        z = mix(z + tick * 0x9E3779B97F4A7C15L);
        z = mix(z + node * 0xBF58476D1CE4E5B9L);
        z = mix(z + item * 0x94D049BB133111EBL);
        z = mix(z + field);
        return (z >>> 11) * 0x1.0p-53;
    }

    private static long mix(final long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
