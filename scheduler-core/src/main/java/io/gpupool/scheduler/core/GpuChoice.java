package io.gpupool.scheduler.core;

import java.util.Arrays;

/**
 * Which whole GPUs inside a node a placement takes, and the candidates built from that choice:
 * {@code k} free healthy GPUs, preferring one NVLink group (else one PCIe switch).
 */
final class GpuChoice {
    private GpuChoice() {
    }

    /** One node, {@code k} whole GPUs on it. */
    static Candidate wholeOn(final int model, final NodeState n, final int k, final double score) {
        return new Candidate(model, new int[] {n.slot}, new int[][] {chooseWhole(n, k)}, 1000, score, GangScope.NODE);
    }

    /** A gang: {@code k} whole GPUs on each of the nodes {@code slots}. */
    static Candidate wholeOnEach(final PoolState st, final int model, final int[] slots, final int k, final double score,
                                 final GangScope scope) {
        final int[][] gpus = new int[slots.length][];
        for (int i = 0; i < slots.length; i++) {
            gpus[i] = chooseWhole(st.node(slots[i]), k);
        }
        return new Candidate(model, slots, gpus, 1000, score, scope);
    }

    /**
     * {@code k} free healthy GPUs, preferring one NVLink group (else one PCIe switch): the group
     * with the fewest free GPUs that still holds all k; otherwise the fullest groups first.
     */
    static int[] chooseWhole(final NodeState n, final int k) {
        final int[] out = new int[k];
        if (k == 0) {
            return out;
        }
        int got = 0;
        if (n.oneAffinityGroup) {
            for (int g = 0; g < n.gpuCount && got < k; g++) {
                if (n.usedMilli[g] == 0 && n.healthBits[g] == 0) {
                    out[got++] = g;
                }
            }
            return out;
        }
        int bestGroup = Integer.MIN_VALUE;
        int bestFree = Integer.MAX_VALUE;
        for (int g = 0; g < n.gpuCount; g++) {
            final int grp = n.affinity[g];
            final int free = freeInGroup(n, grp);
            if (free >= k && (free < bestFree || (free == bestFree && grp < bestGroup))) {
                bestFree = free;
                bestGroup = grp;
            }
        }
        if (bestGroup != Integer.MIN_VALUE) {
            for (int g = 0; g < n.gpuCount && got < k; g++) {
                if (n.usedMilli[g] == 0 && n.healthBits[g] == 0 && n.affinity[g] == bestGroup) {
                    out[got++] = g;
                }
            }
            return out;
        }
        // no group holds all k: take from the groups with most free GPUs first
        final boolean[] taken = new boolean[n.gpuCount];
        while (got < k) {
            int pickGroup = 0;
            int pickFree = -1;
            for (int g = 0; g < n.gpuCount; g++) {
                if (n.usedMilli[g] == 0 && n.healthBits[g] == 0 && !taken[g]) {
                    int free = 0;
                    for (int h = 0; h < n.gpuCount; h++) {
                        if (n.usedMilli[h] == 0 && n.healthBits[h] == 0 && !taken[h] && n.affinity[h] == n.affinity[g]) {
                            free++;
                        }
                    }
                    if (free > pickFree) {
                        pickFree = free;
                        pickGroup = n.affinity[g];
                    }
                }
            }
            for (int g = 0; g < n.gpuCount && got < k; g++) {
                if (n.usedMilli[g] == 0 && n.healthBits[g] == 0 && !taken[g] && n.affinity[g] == pickGroup) {
                    taken[g] = true;
                    out[got++] = g;
                }
            }
        }
        Arrays.sort(out);
        return out;
    }

    private static int freeInGroup(final NodeState n, final int grp) {
        int free = 0;
        for (int g = 0; g < n.gpuCount; g++) {
            if (n.usedMilli[g] == 0 && n.healthBits[g] == 0 && n.affinity[g] == grp) {
                free++;
            }
        }
        return free;
    }
}
