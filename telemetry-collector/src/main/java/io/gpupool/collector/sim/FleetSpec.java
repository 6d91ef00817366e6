package io.gpupool.collector.sim;

/**
 * Shape of a synthetic fleet. Leaves group {@code nodesPerLeaf} nodes, spines group
 * {@code leavesPerSpine} leaves; the last {@code roceSpines} spines form a RoCE island, the rest
 * InfiniBand. Spines alternate GPU models, so both models and both fabrics are always present in a
 * fleet of two spines or more.
 */
public record FleetSpec(String pool, int nodes, int gpusPerNode, int hcasPerNode, int nodesPerLeaf,
        int leavesPerSpine, int roceSpines, long seed) {

    public FleetSpec {
        if (nodes < 1 || gpusPerNode < 1 || hcasPerNode < 0 || nodesPerLeaf < 1 || leavesPerSpine < 1 || roceSpines < 0) {
            throw new IllegalArgumentException("a fleet needs at least 1 node, 1 GPU per node, 1 node per leaf and 1 leaf per spine: " + this);
        }
    }

    /** 4,096 nodes x 8 GPUs: 32 per leaf, 8 leaves per spine (16 spines), the last 4 spines RoCE. */
    public static FleetSpec large(final long seed) {
        return new FleetSpec("default", 4096, 8, 8, 32, 8, 4, seed);
    }

    /** A fleet small enough for tests: 16 nodes x 8 GPUs on 4 leaves and 2 spines (one IB, one RoCE). */
    public static FleetSpec small(final long seed) {
        return new FleetSpec("default", 16, 8, 2, 4, 2, 1, seed);
    }

    public int spines() {
        final int leaves = (nodes + nodesPerLeaf - 1) / nodesPerLeaf;
        return (leaves + leavesPerSpine - 1) / leavesPerSpine;
    }
}
