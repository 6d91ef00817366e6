package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The FGD policy (fragmentation gradient descent, Weng et al., USENIX ATC'23): the placement that
 * grows the expected fragmentation of the remaining GPU capacity least, weighted by the recent
 * job-size mix.
 */
final class FgdPlacement implements PlacementPolicy {
    private final PoolState st;
    private final boolean integerScore;
    private final NodeScan scan;
    private final SeededDraw draws;
    /** Scratch: a node's free milli per GPU before and after the placement being scored. */
    private final int[] freeBefore = new int[NodeSpec.MAX_GPUS_PER_NODE];
    private final int[] freeAfter = new int[NodeSpec.MAX_GPUS_PER_NODE];

    FgdPlacement(final PoolState st, final boolean integerScore, final NodeScan scan, final SeededDraw draws) {
        this.st = st;
        this.integerScore = integerScore;
        this.scan = scan;
        this.draws = draws;
    }

    @Override
    public Candidate single(final JobSpec job, final int[] models, final int k) {
        NodeState best = null;
        int bestModel = -1;
        long bestDelta = Long.MAX_VALUE;
        int bestLeft = Integer.MAX_VALUE;
        long bestTie = Long.MAX_VALUE;
        int[] bestGpus = null;
        for (final int m : models) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                for (NodeState n = scan.first(g, k, g.maxGpus, false, job); n != null; n = scan.next()) {
                    final int[] gpus = GpuChoice.chooseWhole(n, k);
                    final long d = fgdKey(deltaWhole(n, gpus, job.cpuMilliPerNode()), k * 1000L);
                    final long t = draws.tie(job, n.slot);
                    final int left = scan.bucket() - k; // equal growth: the node left with fewer free GPUs keeps the others whole
                    if (d < bestDelta || (d == bestDelta && (left < bestLeft
                            || (left == bestLeft && (n.cpuFree < best.cpuFree
                            || (n.cpuFree == best.cpuFree && t < bestTie)))))) {
                        best = n;
                        bestModel = m;
                        bestDelta = d;
                        bestLeft = left;
                        bestGpus = gpus;
                        bestTie = t;
                    }
                }
            }
        }
        return best == null ? null
                : new Candidate(bestModel, new int[] {best.slot}, new int[][] {bestGpus}, 1000, bestDelta, GangScope.NODE);
    }

    @Override
    public long shareKey(final NodeState n, final int g, final JobSpec job) {
        Fragmentation.freeOf(n, freeBefore);
        System.arraycopy(freeBefore, 0, freeAfter, 0, n.gpuCount);
        freeAfter[g] -= job.gpuMilli();
        return fgdKey(delta(n, job.cpuMilliPerNode()), job.gpuMilli());
    }

    @Override
    public long shareTie(final JobSpec job, final NodeState n, final int gpuFree, final int g) {
        return draws.shareTie(job, n, gpuFree);
    }

    /** The gang's nodes over all the given leaves with the least fragmentation growth, then fewest GPUs left. */
    @Override
    public Candidate gang(final JobSpec job, final int model, final List<CapacityIndex.Group> groups,
                          final GangScope scope) {
        final int k = job.gpusPerNode();
        final int want = job.nodes();
        final List<long[]> all = new ArrayList<>();
        for (final CapacityIndex.Group g : groups) {
            for (NodeState n = scan.first(g, k, g.maxGpus, true, job); n != null; n = scan.next()) {
                all.add(new long[] {deltaWhole(n, GpuChoice.chooseWhole(n, k), job.cpuMilliPerNode()), scan.bucket(), n.slot});
            }
        }
        if (all.size() < want) {
            return null;
        }
        all.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : a[1] != b[1] ? Long.compare(a[1], b[1])
                : Long.compare(a[2], b[2]));
        final int[] slots = new int[want];
        double score = 0;
        for (int i = 0; i < want; i++) {
            slots[i] = (int) all.get(i)[2];
            score += all.get(i)[0];
        }
        return GpuChoice.wholeOnEach(st, model, slots, k, score, scope);
    }

    /**
     * The fgd ranking key (lower better) for a fragmentation growth {@code d} (counts x milli-GPU): d
     * itself, or with fgd-integer-score FGD's plugin score negated, int(100 x sigmoid(-growth / 1000))
     * with the growth per arriving task in milli-GPU. FGD counts all free GPU of a node as fragment to
     * a CPU-only task, so placing milli-GPU there shrinks that part by its weight x the placed milli.
     */
    private long fgdKey(final long d, final long placedMilli) {
        if (!integerScore) {
            return d;
        }
        final JobSizeMix mix = st.sizeMix;
        final double growth = (d - (double) mix.cpuOnlyWeight * placedMilli) / Math.max(1, mix.totalWeight);
        return -(long) (100.0 / (1.0 + StrictMath.exp(growth / 1000.0)));
    }

    private long deltaWhole(final NodeState n, final int[] gpus, final long cpu) {
        Fragmentation.freeOf(n, freeBefore);
        System.arraycopy(freeBefore, 0, freeAfter, 0, n.gpuCount);
        for (final int g : gpus) {
            freeAfter[g] = 0;
        }
        return delta(n, cpu);
    }

    private long delta(final NodeState n, final long cpu) {
        if (n.fragMixVersion != st.sizeMix.version) {
            n.fragNow = Fragmentation.expected(st.sizeMix, st.models, n.modelIndex, freeBefore, n.gpuCount, n.cpuFree);
            n.fragMixVersion = st.sizeMix.version;
        }
        final long before = n.fragNow;
        final long after = Fragmentation.expected(st.sizeMix, st.models, n.modelIndex, freeAfter, n.gpuCount, n.cpuFree - cpu);
        return after - before;
    }
}
