package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which waiting jobs are considered: priority class; then jobs inside their tenant's
 * guaranteed quota before borrowers; numeric priority; earliest deadline first; the tenant with the
 * least fair-share usage per weight; and finally submission order. Every key is a pure function of
 * the state, so the order is the same after a restore.
 */
final class QueueOrder {
    private QueueOrder() {
    }

    static List<Job> order(final List<Job> queue, final PoolState st, final EngineConfig cfg) {
        final List<Job> out = new ArrayList<>(queue);
        if (out.size() < 2) {
            return out;
        }
        final long now = st.nowMs;
        // standing computed once per tenant: the comparator must be consistent during the sort
        final java.util.TreeMap<String, Double> standing = new java.util.TreeMap<>();
        final java.util.TreeMap<String, Boolean> underGuarantee = new java.util.TreeMap<>();
        for (final Job j : out) {
            final String t = j.spec.tenant();
            if (!standing.containsKey(t)) {
                final TenantConfig tc = cfg.tenant(t);
                standing.put(t, st.fairShare.standing(t, tc.weight(), now));
                underGuarantee.put(t, st.fairShare.heldMilli(t) < tc.guaranteedGpus() * 1000L);
            }
        }
        out.sort(Comparator
                .<Job>comparingInt(j -> -j.spec.priorityClass().ordinal())
                .thenComparingInt(j -> underGuarantee.get(j.spec.tenant()) ? 0 : 1)
                .thenComparingInt(j -> -j.spec.priority())
                .thenComparingLong(j -> j.spec.deadlineMs() > 0 ? j.spec.deadlineMs() : Long.MAX_VALUE)
                .thenComparingDouble(j -> standing.get(j.spec.tenant()))
                .thenComparingLong(j -> j.submitSeq));
        return out;
    }
}
