package io.gpupool.scheduler.core;

import java.util.List;

/**
 * The random policy, the FGD paper's Random baseline: a node drawn uniformly among those that fit
 * (seeded, so every replay draws the same). Gangs are packed as best-fit packs them.
 */
final class RandomPlacement implements PlacementPolicy {
    private final PoolState st;
    private final NodeScan scan;
    private final SeededDraw draws;

    RandomPlacement(final PoolState st, final NodeScan scan, final SeededDraw draws) {
        this.st = st;
        this.scan = scan;
        this.draws = draws;
    }

    /** The fitting node with the smallest draw, i.e. one drawn uniformly among all that fit. */
    @Override
    public Candidate single(final JobSpec job, final int[] models, final int k) {
        NodeState best = null;
        int bestModel = -1;
        long bestDraw = Long.MAX_VALUE;
        for (final int m : models) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                for (NodeState n = scan.first(g, k, g.maxGpus, false, job); n != null; n = scan.next()) {
                    final long d = draws.draw(job, n.slot);
                    if (best == null || Long.compareUnsigned(d, bestDraw) < 0) {
                        best = n;
                        bestModel = m;
                        bestDraw = d;
                    }
                }
            }
        }
        return best == null ? null : GpuChoice.wholeOn(bestModel, best, k, 0);
    }

    @Override
    public long shareKey(final NodeState n, final int g, final JobSpec job) {
        return draws.draw(job, n.slot) >>> 1;
    }

    /** The GPU is drawn too. */
    @Override
    public long shareTie(final JobSpec job, final NodeState n, final int gpuFree, final int g) {
        return draws.draw(job, n.slot * NodeSpec.MAX_GPUS_PER_NODE + g) >>> 1;
    }

    @Override
    public Candidate gang(final JobSpec job, final int model, final List<CapacityIndex.Group> groups,
                          final GangScope scope) {
        return BestFitPlacement.packGang(st, scan, job, model, groups, scope);
    }
}
