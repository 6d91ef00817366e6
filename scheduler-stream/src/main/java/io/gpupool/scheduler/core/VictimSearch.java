package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Finds the cheapest set of running jobs whose eviction gives a blocked job a real placement, and
 * evicts it. Every candidate set is verified by taking its jobs off the pool and asking the placer,
 * so jobs are never evicted where the freed capacity would still not hold the job in its topology
 * (the Kueue issue 5243 failure); the set is then pruned to the jobs really needed. Per leaf for
 * single-node and leaf-bound jobs, pool-wide otherwise; the cheapest verified set wins.
 *
 * <p>Preemption: victims are preemptible jobs of a lower priority class, or (quota reclaim) of a
 * tenant over its guaranteed quota when the blocked job's tenant is under its own. Consolidation:
 * preemptible jobs of the same or a lower class, bounded by {@code consolidation-max-evictions}.
 */
final class VictimSearch {
    /** Longest prefix of candidate victims tried per search: bounds the cost of one search. */
    private static final int MAX_PREFIX = 64;

    private final PoolEngine engine;
    private final PoolState st;
    private final EngineConfig cfg;
    private final Placer placer;

    VictimSearch(final PoolEngine engine, final PoolState st, final EngineConfig cfg, final Placer placer) {
        this.engine = engine;
        this.st = st;
        this.cfg = cfg;
        this.placer = placer;
    }

    boolean anyFor(final Job j, final boolean consolidation) {
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

    private boolean eligible(final Job j, final Job v, final boolean consolidation) {
        if (!v.state.holdsResources() || !v.spec.preemptible() || v == j) {
            return false;
        }
        final int jc = j.spec.priorityClass().ordinal();
        final int vc = v.spec.priorityClass().ordinal();
        if (consolidation) {
            return vc <= jc;
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

    /** Cheapest first: lower class, lower priority, less work lost, younger. */
    private Comparator<Job> cheapestFirst() {
        return Comparator.<Job>comparingInt(v -> v.spec.priorityClass().ordinal())
                .thenComparingInt(v -> v.spec.priority())
                .thenComparingDouble(this::lostGpuMs)
                .thenComparingLong(v -> -v.submitSeq);
    }

    private double lostGpuMs(final Job v) {
        final long start = v.startedAtMs > 0 ? v.startedAtMs : v.placedAtMs;
        return v.gpus() * Math.max(0, st.nowMs - start);
    }

    /** Finds, evicts and places; false (nothing changed) when no verified victim set exists. */
    boolean evictFor(final Job j, final boolean consolidation) {
        final List<Job> all = new ArrayList<>();
        for (final Job v : st.activeJobs.values()) {
            if (eligible(j, v, consolidation)) {
                all.add(v);
            }
        }
        all.sort(cheapestFirst());
        final int limit = consolidation ? Math.min(cfg.consolidationMaxEvictions(), MAX_PREFIX) : MAX_PREFIX;
        List<Job> best = null;
        double bestCost = Double.MAX_VALUE;
        if (j.spec.nodes() == 1 || (j.spec.topologyRequired() && j.spec.topology().compareTo(TopologyScope.LEAF) <= 0)) {
            final TreeSet<Integer> leaves = new TreeSet<>();
            for (final Job v : all) {
                for (final int s : v.slots) {
                    leaves.add(st.node(s).leafIndex);
                }
            }
            for (final int leaf : leaves) {
                final List<Job> onLeaf = new ArrayList<>();
                for (final Job v : all) {
                    for (final int s : v.slots) {
                        if (st.node(s).leafIndex == leaf) {
                            onLeaf.add(v);
                            break;
                        }
                    }
                }
                final List<Job> set = verifiedSet(j, onLeaf, limit);
                if (set != null && cost(set) < bestCost) {
                    best = set;
                    bestCost = cost(set);
                }
            }
        } else {
            best = verifiedSet(j, all, limit);
        }
        if (best == null) {
            return false;
        }
        final ReasonCode code = consolidation ? ReasonCode.CONSOLIDATED : ReasonCode.PREEMPTED;
        final StringBuilder names = new StringBuilder();
        for (final Job v : best) {
            names.append(names.length() == 0 ? "" : ", ").append(v.id());
            engine.evict(v, new Reason(code, (consolidation ? "moved to make room for " : "preempted by ") + j.id()
                    + " (" + j.spec.priorityClass() + ", " + j.spec.nodes() + " x " + j.spec.gpusPerNode() + " GPUs)",
                    java.util.Map.of("by", j.id())), j.id(), true);
        }
        final Candidate c = placer.place(j.spec);
        if (c == null) {
            throw new IllegalStateException("verified victim set did not free a placement for " + j.id());
        }
        engine.allocate(j, c, (consolidation ? "moved " : "preempted ") + names);
        return true;
    }

    /** Cost of a victim set: the GPU-time its jobs lose, plus a large step per priority class evicted. */
    private double cost(final List<Job> set) {
        double c = 0;
        for (final Job v : set) {
            c += lostGpuMs(v) + v.gpus() + 1e15 * v.spec.priorityClass().ordinal();
        }
        return c;
    }

    /**
     * Takes candidates off the pool in order until the job fits, then puts back every one it still
     * fits without; restores the pool exactly. Null when no prefix up to {@code limit} makes it fit.
     */
    private List<Job> verifiedSet(final Job j, final List<Job> candidates, final int limit) {
        final List<Job> off = new ArrayList<>();
        boolean fits = false;
        for (final Job v : candidates) {
            if (off.size() >= limit) {
                break;
            }
            engine.unaccount(v);
            off.add(v);
            if (placer.place(j.spec) != null) {
                fits = true;
                break;
            }
        }
        if (!fits) {
            for (int i = off.size() - 1; i >= 0; i--) {
                engine.reaccount(off.get(i));
            }
            return null;
        }
        final List<Job> needed = new ArrayList<>(off);
        for (int i = off.size() - 1; i >= 0; i--) {
            final Job v = off.get(i);
            engine.reaccount(v);
            if (placer.place(j.spec) == null) {
                engine.unaccount(v); // needed after all
            } else {
                needed.remove(v);
            }
        }
        for (int i = needed.size() - 1; i >= 0; i--) {
            engine.reaccount(needed.get(i));
        }
        return needed;
    }
}
