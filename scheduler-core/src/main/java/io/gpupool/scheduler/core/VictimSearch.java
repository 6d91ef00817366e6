package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Finds the cheapest set of running jobs whose eviction gives a blocked job a placement, and evicts
 * it (preemption), or moves it (consolidation: evict and requeue). The coordinator of the pieces:
 * <ul>
 * <li>who may be a victim: {@link VictimEligibility}, and for consolidation {@link ConsolidationBudget}
 *     (victims per move, per window, and each job's cooldown);</li>
 * <li>what a set costs: {@link VictimCost} (level of the most important victim, GPU-time lost, number
 *     of victims, younger); a cheapest set is inclusion-minimal, so every victim is needed;</li>
 * <li>where evicting frees enough: {@link ScopeSearch} (scopes and the least level at which one fits),
 *     {@link ScopeSolver} (the cheapest set in one scope), {@link NodeOptionSearch} (per node) and
 *     {@link LimitedCombination} (with a count limit); sets of equal cost are told apart by the search
 *     order (node slots, then victims cheapest first), so the choice is deterministic;</li>
 * <li>carrying it out: {@link VictimEviction}, which checks the set against the placer first and never
 *     evicts in vain.</li>
 * </ul>
 * One search does at most {@link #WORK_LIMIT} elementary steps ({@link SearchWork}). (On a 32k-GPU pool
 * full of small preemptible jobs, searches for single nodes and for gangs stay well within the bound.)
 */
final class VictimSearch {
    /** Elementary steps one search may take (see {@link SearchWork}). */
    static final int WORK_LIMIT = 100_000;

    private final PoolState st;
    private final PlacementSearch placer;
    private final ConsolidationBudget budget;
    private final VictimEligibility eligibility;
    private final VictimEviction eviction;

    VictimSearch(final PoolEngine engine, final PoolState st, final EngineConfig cfg, final PlacementSearch placer) {
        this.st = st;
        this.placer = placer;
        this.budget = new ConsolidationBudget(st, cfg);
        this.eligibility = new VictimEligibility(st, cfg, budget);
        this.eviction = new VictimEviction(engine, st, placer, budget);
    }

    /** The cost of a victim set ({@link VictimCost}); lower is cheaper. */
    record Cost(long level, long lostMilliGpuMs, int victims, long seqSum) implements Comparable<Cost> {
        @Override
        public int compareTo(final Cost o) {
            int c = Long.compare(level, o.level);
            if (c == 0) {
                c = Long.compare(lostMilliGpuMs, o.lostMilliGpuMs);
            }
            if (c == 0) {
                c = Integer.compare(victims, o.victims);
            }
            if (c == 0) {
                c = Long.compare(o.seqSum, seqSum);
            }
            return c;
        }

        /** This cost with {@code count} more victims of no higher level, losing {@code lost} and summing {@code seq}. */
        Cost plus(final long lost, final int count, final long seq) {
            return new Cost(level, StreamTime.plus(lostMilliGpuMs, lost), victims + count, seqSum + seq);
        }
    }

    /** A chosen victim set, cheapest first; {@code exact} is false when the work bound cut the search short. */
    record Plan(List<Job> victims, Cost cost, boolean exact) {
    }

    static Cost costOf(final Collection<Job> set, final long nowMs) {
        return VictimCost.of(set, nowMs);
    }

    /** Is any running job a victim for {@code j}? Cheap: the caller asks before every search. */
    boolean anyFor(final Job j, final boolean consolidation) {
        return eligibility.anyFor(j, consolidation);
    }

    /** May {@code v} be evicted for {@code j}? (Package-private for the tests' brute force.) */
    boolean eligible(final Job j, final Job v, final boolean consolidation) {
        return eligibility.eligible(j, v, consolidation);
    }

    /** Victims one consolidation may still move: the per-move bound and what the pool's window has left. */
    int consolidationLimit() {
        return budget.limit();
    }

    /** Finds, evicts and places; false (nothing changed) when no victim set frees a placement. */
    boolean evictFor(final Job j, final boolean consolidation) {
        final Plan plan = search(j, consolidation);
        return plan != null && eviction.evictAndPlace(j, plan, consolidation);
    }

    /**
     * The cheapest victim set for {@code j}, or null when none frees a placement. Leaves the pool
     * exactly as it was.
     */
    Plan search(final Job j, final boolean consolidation) {
        final int limit = consolidation ? budget.limit() : Integer.MAX_VALUE;
        if (limit <= 0) {
            return null;
        }
        final List<Job> eligible = new ArrayList<>();
        for (final Job v : st.activeJobs.values()) {
            if (eligibility.eligible(j, v, consolidation)) {
                eligible.add(v);
            }
        }
        return new ScopeSearch(st, placer, j.spec, limit).cheapest(eligible);
    }
}
