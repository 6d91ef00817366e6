package io.gpupool.scheduler.core;

/**
 * Inventory totals per GPU model (healthy or not), recomputed only when the inventory changes:
 * what the never-fits checks at submission compare against without scanning the pool.
 */
final class ModelStats {
    long[] totalGpus = new long[0];
    /** model -> c -> nodes with at least c GPUs. */
    int[][] nodesWithAtLeast = new int[0][];
    long[] maxCpu = new long[0];
    long[] maxMem = new long[0];
    int[] maxGpuMem = new int[0];
    /** Largest node CPU and GPU capacity (milli-GPU) over the whole pool: best-fit's normalisers. */
    long maxCpuAll;
    long maxGpuMilliAll;
    private boolean dirty = true;

    void invalidate() {
        dirty = true;
    }

    ModelStats current(final PoolState st) {
        if (!dirty) {
            return this;
        }
        final int models = st.models.size();
        totalGpus = new long[models];
        nodesWithAtLeast = new int[models][NodeSpec.MAX_GPUS_PER_NODE + 1];
        maxCpu = new long[models];
        maxMem = new long[models];
        maxGpuMem = new int[models];
        maxCpuAll = 0;
        maxGpuMilliAll = 0;
        for (final NodeState n : st.slots) {
            if (n == null) {
                continue;
            }
            final int m = n.modelIndex;
            totalGpus[m] += n.gpuCount;
            for (int c = 0; c <= n.gpuCount; c++) {
                nodesWithAtLeast[m][c]++;
            }
            maxCpu[m] = Math.max(maxCpu[m], n.spec.cpuMilli());
            maxCpuAll = Math.max(maxCpuAll, n.spec.cpuMilli());
            maxGpuMilliAll = Math.max(maxGpuMilliAll, 1000L * n.gpuCount);
            maxMem[m] = Math.max(maxMem[m], n.spec.memoryMib());
            for (final GpuSpec g : n.spec.gpus()) {
                maxGpuMem[m] = Math.max(maxGpuMem[m], g.memoryMib());
            }
        }
        dirty = false;
        return this;
    }
}
