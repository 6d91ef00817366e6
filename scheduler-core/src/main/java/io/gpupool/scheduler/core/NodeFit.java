package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A candidate node of a victim search: a copy of its free resources that the search changes as it
 * frees victims' parts (the pool itself is never touched), the parts of eligible victims on it, and
 * the placer's per-node filter reproduced on that copy.
 */
final class NodeFit {
    final NodeState n;
    final List<VictimPart> parts = new ArrayList<>(4);
    /** The least level from which the node fits ({@link #minLevel()}), set once its parts are known. */
    long minLevel;

    private final JobSpec spec;
    private final SearchWork work;
    private final int[] used;
    private final long[] gpuMem;
    private long cpu;
    private long mem;

    NodeFit(final NodeState n, final JobSpec spec, final SearchWork work) {
        this.n = n;
        this.spec = spec;
        this.work = work;
        this.used = n.usedMilli.clone();
        this.gpuMem = n.usedGpuMemMib.clone();
        this.cpu = n.cpuFree;
        this.mem = n.memFree;
    }

    /** Frees (sign 1) or takes back (sign -1) one assignment, as unaccount/reaccount do. */
    void free(final PlacementPart a, final int sign) {
        for (final int g : a.gpus()) {
            used[g] -= sign * a.gpuMilli();
            if (a.gpuMilli() < 1000) {
                gpuMem[g] -= sign * a.gpuMemoryMib();
            }
        }
        cpu += sign * a.cpuMilli();
        mem += sign * a.memoryMib();
    }

    /** Frees (sign 1) or takes back (sign -1) the parts from index {@code from} to {@code to} (exclusive). */
    void free(final List<VictimPart> ps, final int from, final int to, final int sign) {
        for (int k = from; k < to; k++) {
            free(ps.get(k).a(), sign);
        }
    }

    /** The node would fit with every part from index {@code from} on freed; leaves it as it was. */
    boolean fitsFreeingFrom(final List<VictimPart> ps, final int from) {
        free(ps, from, ps.size(), 1);
        final boolean can = fits();
        free(ps, from, ps.size(), -1);
        return can;
    }

    /** The placer's per-node filter on the freed state (model, network and links checked before). */
    boolean fits() {
        work.step();
        if (cpu < spec.cpuMilliPerNode() || mem < spec.memoryMibPerNode()) {
            return false;
        }
        if (spec.isShare()) {
            for (int g = 0; g < n.gpuCount; g++) {
                if (n.healthBits[g] == 0 && 1000 - used[g] >= spec.gpuMilli()) {
                    final int cap = n.spec.gpus().get(g).memoryMib();
                    if (spec.gpuMemoryMib() <= 0 || cap <= 0 || gpuMem[g] + spec.gpuMemoryMib() <= cap) {
                        return true;
                    }
                }
            }
            return false;
        }
        int free = 0;
        for (int g = 0; g < n.gpuCount; g++) {
            if (used[g] == 0 && n.healthBits[g] == 0) {
                free++;
            }
        }
        return free >= spec.gpusPerNode();
    }

    /**
     * The least level from which freeing every victim on the node lets it take (a member of) the job:
     * {@link VictimCost#FREE} when it fits as it is, {@link VictimCost#NEVER} when nothing makes it fit.
     */
    long minLevel() {
        if (fits()) {
            return VictimCost.FREE;
        }
        final List<VictimPart> sorted = new ArrayList<>(parts);
        sorted.sort(Comparator.comparingLong(p -> p.v().level));
        long result = VictimCost.NEVER;
        int i = 0;
        while (i < sorted.size()) {
            final long lv = sorted.get(i).v().level;
            while (i < sorted.size() && sorted.get(i).v().level == lv) {
                free(sorted.get(i).a(), 1);
                i++;
            }
            if (fits()) {
                result = lv;
                break;
            }
        }
        free(sorted, 0, i, -1);
        return result;
    }
}
