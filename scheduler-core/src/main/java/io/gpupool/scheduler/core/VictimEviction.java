package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Carries out a chosen victim set: checks it against the placer and keeps every victim the job fits
 * without, so a search cut short by its bound can cost more than the optimum but never evicts in vain;
 * then evicts the rest, saying who evicted them and why, and places the job.
 */
final class VictimEviction {
    private final PoolEngine engine;
    private final PoolState st;
    private final PlacementSearch placer;
    private final ConsolidationBudget budget;

    VictimEviction(final PoolEngine engine, final PoolState st, final PlacementSearch placer,
                   final ConsolidationBudget budget) {
        this.engine = engine;
        this.st = st;
        this.placer = placer;
        this.budget = budget;
    }

    /** Evicts the plan's needed victims and places {@code j}; false (nothing changed) when it frees no placement. */
    boolean evictAndPlace(final Job j, final VictimSearch.Plan plan, final boolean consolidation) {
        final List<Job> set = needed(j, plan.victims());
        if (set.isEmpty() || (consolidation && set.size() > budget.limit())) {
            return false;
        }
        final String names = names(set);
        final String summary = summary(set, plan.exact());
        final long now = st.nowMs;
        final ReasonCode code = consolidation ? ReasonCode.CONSOLIDATED : ReasonCode.PREEMPTED;
        for (final Job v : set) {
            final Map<String, String> ev = new LinkedHashMap<>();
            ev.put("by", j.id());
            ev.put("victim_set", names);
            ev.put("lost_gpu_s", Long.toString(VictimCost.lost(v, now) / 1_000_000));
            engine.evict(v, new Reason(code, (consolidation ? "moved to make room for " : "preempted by ") + j.id()
                    + " (" + j.spec.priorityClass() + ", " + j.spec.nodes() + " x " + j.spec.gpusPerNode() + " GPUs)",
                    ev), j.id(), true);
            if (consolidation) {
                budget.moved(v);
            }
        }
        if (consolidation) {
            budget.movedFor(j);
        }
        final Candidate c = placer.place(j.spec);
        if (c == null) {
            throw new IllegalStateException("verified victim set did not free a placement for " + j.id());
        }
        engine.allocate(j, c, (consolidation ? "moved " : "preempted ") + names + summary);
        return true;
    }

    /**
     * The victims {@code j} needs of {@code victims} (cheapest first), keeping the dearest first
     * (none is kept when the search was exact); empty when even the whole set frees no placement.
     * Leaves the pool as it was.
     */
    private List<Job> needed(final Job j, final List<Job> victims) {
        final List<Job> set = new ArrayList<>(victims);
        for (final Job v : set) {
            engine.unaccount(v);
        }
        if (placer.place(j.spec) == null) {
            reaccount(set);
            return List.of(); // cannot happen while the search mirrors the placer; never evict in vain
        }
        for (int i = set.size() - 1; i >= 0; i--) {
            final Job v = set.get(i);
            engine.reaccount(v);
            if (placer.place(j.spec) == null) {
                engine.unaccount(v);
            } else {
                set.remove(i);
            }
        }
        reaccount(set);
        return set;
    }

    /** Takes the victims' resources back, in the reverse of the order they were freed. */
    private void reaccount(final List<Job> set) {
        for (int i = set.size() - 1; i >= 0; i--) {
            engine.reaccount(set.get(i));
        }
    }

    private static String names(final List<Job> set) {
        final StringBuilder names = new StringBuilder();
        for (final Job v : set) {
            names.append(names.length() == 0 ? "" : ", ").append(v.id());
        }
        return names.toString();
    }

    /** " (2 victims, up to BATCH priority 0, 120 GPU-s lost)": what the placement's reason adds. */
    private String summary(final List<Job> set, final boolean exact) {
        final VictimSearch.Cost cost = VictimCost.of(set, st.nowMs);
        return " (" + set.size() + (set.size() == 1 ? " victim" : " victims") + ", up to "
                + VictimCost.describeLevel(cost.level()) + ", "
                + cost.lostMilliGpuMs() / 1_000_000 + " GPU-s lost" + (exact ? "" : ", search bounded") + ")";
    }
}
