package io.gpupool.scheduler.core;

/**
 * Who may be evicted for whom. Preemption: preemptible jobs of a lower priority class, or (quota
 * reclaim) of another tenant over its guaranteed quota when the blocked job's tenant stays under its
 * own. Consolidation: preemptible jobs of the same or a lower class that are not cooling down
 * ({@link ConsolidationBudget}).
 */
final class VictimEligibility {
    private final PoolState st;
    private final EngineConfig cfg;
    private final ConsolidationBudget budget;

    VictimEligibility(final PoolState st, final EngineConfig cfg, final ConsolidationBudget budget) {
        this.st = st;
        this.cfg = cfg;
        this.budget = budget;
    }

    /** Is any running job a victim for {@code j}? Counts per class first, so a pool without candidates costs nothing. */
    boolean anyFor(final Job j, final boolean consolidation) {
        if (consolidation && budget.limit() <= 0) {
            return false;
        }
        final int jc = j.spec.priorityClass().ordinal();
        int candidates = 0;
        for (int c = 0; c <= jc; c++) {
            if (c < jc || consolidation || underGuarantee(j.spec.tenant(), j.spec.totalGpuMilli())) {
                candidates += st.preemptibleHolding[c];
            }
        }
        if (candidates == 0) {
            return false;
        }
        for (final Job v : st.activeJobs.values()) {
            if (eligible(j, v, consolidation)) {
                return true;
            }
        }
        return false;
    }

    /** May {@code v} be evicted for {@code j}? */
    boolean eligible(final Job j, final Job v, final boolean consolidation) {
        if (!v.state.holdsResources() || !v.spec.preemptible() || v == j) {
            return false;
        }
        final int jc = j.spec.priorityClass().ordinal();
        final int vc = v.spec.priorityClass().ordinal();
        if (consolidation) {
            return vc <= jc && !budget.coolingDown(v);
        }
        if (vc < jc) {
            return true;
        }
        return vc == jc && underGuarantee(j.spec.tenant(), j.spec.totalGpuMilli())
                && overGuarantee(v.spec.tenant()) && !v.spec.tenant().equals(j.spec.tenant());
    }

    private boolean underGuarantee(final String tenant, final long extraMilli) {
        return st.fairShare.heldMilli(tenant) + extraMilli <= cfg.tenant(tenant).guaranteedGpus() * 1000L;
    }

    private boolean overGuarantee(final String tenant) {
        return st.fairShare.heldMilli(tenant) > cfg.tenant(tenant).guaranteedGpus() * 1000L;
    }
}
