package io.gpupool.scheduler.core;

import java.util.List;

/** The first-fit policy: the first fitting node(s) in pool order, gangs in fabric order. */
final class FirstFitPlacement implements PlacementPolicy {
    private final PoolState st;
    private final NodeScan scan;
    private final SeededDraw draws;

    FirstFitPlacement(final PoolState st, final NodeScan scan, final SeededDraw draws) {
        this.st = st;
        this.scan = scan;
        this.draws = draws;
    }

    @Override
    public Candidate single(final JobSpec job, final int[] models, final int k) {
        for (final int m : models) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                final NodeState n = scan.firstInSlotOrder(g, k, job);
                if (n != null) {
                    return GpuChoice.wholeOn(m, n, k, 0);
                }
            }
        }
        return null;
    }

    @Override
    public long shareKey(final NodeState n, final int g, final JobSpec job) {
        return n.slot;
    }

    @Override
    public long shareTie(final JobSpec job, final NodeState n, final int gpuFree, final int g) {
        return draws.shareTie(job, n, gpuFree);
    }

    /** Later nodes of a bucket have higher slots: they cannot rank first. */
    @Override
    public boolean oneSharePerBucket() {
        return true;
    }

    @Override
    public boolean packsGangs() {
        return false;
    }

    @Override
    public Candidate gang(final JobSpec job, final int model, final List<CapacityIndex.Group> groups,
                          final GangScope scope) {
        final int k = job.gpusPerNode();
        final int[] slots = new int[job.nodes()];
        int got = 0;
        for (final CapacityIndex.Group g : groups) {
            for (int p = 0; p < g.members.length; p++) {
                final NodeState n = st.node(g.members[p]);
                if (n.freeWhole >= k && NodeScan.fits(n, job, true)) {
                    slots[got++] = n.slot;
                    if (got == slots.length) {
                        return GpuChoice.wholeOnEach(st, model, slots, k, 0, scope);
                    }
                }
            }
        }
        return null;
    }
}
