package io.gpupool.simulator.fgd;

import java.util.Arrays;

/**
 * One FGD run (one policy, one seed): after the i-th arriving pod, the cumulative arrived GPU
 * demand and the GPU milli allocated, both in milli-GPU; and where each pod went.
 *
 * @param placedNode node id per pod, or null when the pod failed
 * @param fragmentedFreeMilli free GPU milli on nodes that already host GPU work, after each pod
 * @param fragmentationRateByPct the engine's FGD fragmentation rate (0..1) when arrived demand first
 *        reached each whole percent of capacity (index = percent), NaN for percents never reached
 */
public record FgdSeries(
        String policy,
        long seed,
        long capacityMilli,
        String[] podNames,
        long[] podGpuMilli,
        long[] arrivedMilli,
        long[] allocatedMilli,
        long[] fragmentedFreeMilli,
        String[] placedNode,
        double[] fragmentationRateByPct) {

    public int pods() {
        return arrivedMilli.length;
    }

    public long failedPods() {
        return Arrays.stream(placedNode).filter(n -> n == null).count();
    }

    /**
     * Allocated share of capacity (percent) once arrived demand has reached {@code arrivedPct}
     * percent of capacity: the state after the last pod that keeps arrived demand at or below it,
     * or the final state when the run ends earlier.
     */
    public double allocatedPctAt(final double arrivedPct) {
        final double limit = arrivedPct / 100.0 * capacityMilli;
        long allocated = 0;
        for (int i = 0; i < arrivedMilli.length && arrivedMilli[i] <= limit + 1e-9; i++) {
            allocated = allocatedMilli[i];
        }
        return 100.0 * allocated / capacityMilli;
    }

    /** Free GPU capacity stranded on partly used nodes, percent of capacity, at {@code arrivedPct}. */
    public double fragmentedPctAt(final double arrivedPct) {
        final double limit = arrivedPct / 100.0 * capacityMilli;
        long fragmented = 0;
        for (int i = 0; i < arrivedMilli.length && arrivedMilli[i] <= limit + 1e-9; i++) {
            fragmented = fragmentedFreeMilli[i];
        }
        return 100.0 * fragmented / capacityMilli;
    }

    public double finalArrivedPct() {
        return arrivedMilli.length == 0 ? 0 : 100.0 * arrivedMilli[arrivedMilli.length - 1] / capacityMilli;
    }
}
