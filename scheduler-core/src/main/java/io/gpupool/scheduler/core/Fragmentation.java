package io.gpupool.scheduler.core;

/**
 * FGD's fragmentation measure (Weng et al., "Beware of Fragmentation", USENIX ATC'23). For a node
 * and a task shape m, the fragment F(n, m) is the free GPU capacity of n that m cannot use: all of
 * it when m cannot run on n at all (model, CPU, or not enough GPU), otherwise the free milli-GPU on
 * GPUs too small for m's per-GPU demand. The node's expected fragmentation is the sum over the
 * typical shapes weighted by how often they arrive. The fgd policy places where this grows least.
 * Integer arithmetic (milli-GPU x counts) keeps the comparison exact and order-independent.
 */
final class Fragmentation {
    private Fragmentation() {
    }

    /**
     * @param free     free milli-GPU per GPU (unhealthy GPUs must be given as 0)
     * @param cpuFree  free CPU of the node
     */
    static long expected(final JobSizeMix mix, final NameTable models, final int model, final int[] free,
                         final int gpuCount, final long cpuFree) {
        long sumFree = 0;
        int fullFree = 0;
        for (int g = 0; g < gpuCount; g++) {
            sumFree += free[g];
            if (free[g] == 1000) {
                fullFree++;
            }
        }
        if (sumFree == 0) {
            return 0;
        }
        long total = 0;
        for (int grp = 0; grp < mix.groupGpus.length; grp++) {
            final int gpus = mix.groupGpus[grp];
            if (gpus == 0) {
                continue; // CPU-only tasks cannot use GPUs at all: not fragmentation
            }
            final long all = mix.groupWeightPrefix[grp][mix.groupCpu[grp].length];
            if (!mix.allowed(grp, model, models)) {
                total += all * sumFree;
                continue;
            }
            final int milli = mix.groupMilli[grp];
            final long gpuFragment;
            if (milli >= 1000) {
                gpuFragment = fullFree < gpus ? sumFree : sumFree - 1000L * fullFree;
            } else {
                long small = 0;
                boolean fits = false;
                for (int g = 0; g < gpuCount; g++) {
                    if (free[g] >= milli) {
                        fits = true;
                    } else {
                        small += free[g];
                    }
                }
                gpuFragment = fits ? small : sumFree;
            }
            final long lackCpu = mix.weightNeedingMoreCpu(grp, cpuFree);
            total += lackCpu * sumFree + (all - lackCpu) * gpuFragment;
        }
        return total;
    }

    /** Fills {@code out} with the node's free milli-GPU per GPU, unhealthy GPUs as 0. */
    static void freeOf(final NodeState n, final int[] out) {
        for (int g = 0; g < n.gpuCount; g++) {
            out[g] = n.healthBits[g] == 0 ? 1000 - n.usedMilli[g] : 0;
        }
    }
}
