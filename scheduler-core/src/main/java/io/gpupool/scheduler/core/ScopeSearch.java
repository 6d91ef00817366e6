package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One victim search: where evicting frees enough, and the least level at which it does.
 * Feasibility is decided per <i>scope</i>, the nodes among which the placer must find the job's
 * nodes: each node for a single-node job; each (leaf, GPU model) for a gang whose leaf is required;
 * each (spine, model) for a required spine; each model otherwise (a preferred topology only ranks
 * placements, any node of the model may be used). Within a scope the placer's filter is reproduced
 * exactly per node ({@link NodeFit}), so a node fits once enough of its victims' parts are freed; a
 * gang of N fits once N nodes of the scope fit.
 *
 * <p>Freeing every victim up to level L frees each node independently, so node n fits from its own
 * least level L(n), a scope from the N-th smallest L(n), and the pool from the least scope level L*.
 * No set whose victims are all below L* is feasible, so every feasible set using victims up to L* has
 * level exactly L*; the rest compares by (lost, count, younger), solved per scope ({@link ScopeSolver}).
 * With a count limit the least level may need too many victims, so levels are tried in increasing
 * order until one gives a set within the limit.
 *
 * <p>When the work bound ({@link SearchWork}) cuts the search short the cheapest set found so far is
 * used, or, if none yet, every victim up to the level reached on the first scope that reaches it.
 */
final class ScopeSearch {
    private final PoolState st;
    private final PlacementSearch placer;
    private final JobSpec spec;
    private final int need;
    private final int limit;
    private final SearchWork work = new SearchWork();

    /** At most {@code limit} victims ({@code Integer.MAX_VALUE}: no limit) for a job of {@code spec}. */
    ScopeSearch(final PoolState st, final PlacementSearch placer, final JobSpec spec, final int limit) {
        this.st = st;
        this.placer = placer;
        this.spec = spec;
        this.need = Math.max(1, spec.nodes());
        this.limit = limit;
    }

    /** The cheapest set of the {@code eligible} jobs that frees a placement, or null. Leaves the pool as it was. */
    VictimSearch.Plan cheapest(final List<Job> eligible) {
        final boolean gang = spec.nodes() > 1;
        final boolean[] model = new boolean[st.models.size()];
        for (final int m : placer.models(spec)) {
            model[m] = true;
        }
        final NodeFit[] fitOf = new NodeFit[st.slots.size()];
        final TreeSet<Long> levels = new TreeSet<>();
        for (final Job v : eligible) {
            final Victim w = new Victim(v, st.nowMs);
            for (int i = 0; i < v.slots.length; i++) {
                final NodeState n = st.node(v.slots[i]);
                if (usable(n, model, gang)) {
                    if (fitOf[n.slot] == null) {
                        fitOf[n.slot] = new NodeFit(n, spec, work);
                    }
                    fitOf[n.slot].parts.add(new VictimPart(w, v.placement.get(i)));
                    levels.add(w.level);
                }
            }
        }
        if (levels.isEmpty()) {
            return null;
        }
        if (gang) {
            // nodes that already take a member of the gang count towards it
            for (final NodeState n : st.slots) {
                if (n != null && fitOf[n.slot] == null && usable(n, model, true)) {
                    final NodeFit f = new NodeFit(n, spec, work);
                    if (f.fits()) {
                        fitOf[n.slot] = f;
                    }
                }
            }
        }
        final TreeMap<Long, List<NodeFit>> scopes = new TreeMap<>();
        for (final NodeFit f : fitOf) {
            if (f != null) {
                f.minLevel = f.minLevel();
                if (f.minLevel != VictimCost.NEVER) {
                    scopes.computeIfAbsent(scopeKey(f.n), k -> new ArrayList<>()).add(f);
                }
            }
        }
        final TreeMap<Long, Long> scopeLevel = scopeLevels(scopes);
        final long start = min(scopeLevel.values());
        if (start == VictimCost.NEVER || start == VictimCost.FREE) {
            return null; // nothing frees it, or it fits already (the caller asked the placer first)
        }
        final ScopeSolver solver = new ScopeSolver(need, limit, work);
        long reached = start;
        for (final long lv : levels.tailSet(start, true)) {
            reached = lv;
            for (final Map.Entry<Long, Long> e : scopeLevel.entrySet()) {
                if (e.getValue() <= lv && !work.exhausted()) {
                    solver.solve(scopes.get(e.getKey()), lv);
                }
            }
            if (solver.best() != null || work.exhausted()) {
                break;
            }
        }
        List<Victim> chosen = solver.bestSet();
        if (chosen == null && work.exhausted()) {
            chosen = everyVictimUpTo(reached, scopes, scopeLevel);
        }
        if (chosen == null || chosen.isEmpty()) {
            return null;
        }
        return plan(chosen, !work.exhausted());
    }

    /** Per scope that has {@code need} nodes a victim can make fit: the level from which it fits. */
    private TreeMap<Long, Long> scopeLevels(final TreeMap<Long, List<NodeFit>> scopes) {
        final TreeMap<Long, Long> scopeLevel = new TreeMap<>();
        for (final Map.Entry<Long, List<NodeFit>> e : scopes.entrySet()) {
            if (e.getValue().size() >= need) {
                final long[] ls = new long[e.getValue().size()];
                for (int i = 0; i < ls.length; i++) {
                    ls[i] = e.getValue().get(i).minLevel;
                }
                Arrays.sort(ls);
                scopeLevel.put(e.getKey(), ls[need - 1]);
            }
        }
        return scopeLevel;
    }

    private static long min(final Iterable<Long> values) {
        long m = VictimCost.NEVER;
        for (final long v : values) {
            m = Math.min(m, v);
        }
        return m;
    }

    /** Cut short before any set was found: every victim up to the level on the first scope that has it. */
    private static List<Victim> everyVictimUpTo(final long reached, final TreeMap<Long, List<NodeFit>> scopes,
                                                final TreeMap<Long, Long> scopeLevel) {
        final List<Victim> chosen = new ArrayList<>();
        for (final Map.Entry<Long, Long> e : scopeLevel.entrySet()) {
            if (e.getValue() <= reached) {
                for (final NodeFit f : scopes.get(e.getKey())) {
                    for (final VictimPart p : f.parts) {
                        if (p.v().level <= reached && !chosen.contains(p.v())) {
                            chosen.add(p.v());
                        }
                    }
                }
                break;
            }
        }
        return chosen;
    }

    /** The set as jobs, cheapest first, with its cost. */
    private VictimSearch.Plan plan(final List<Victim> chosen, final boolean exact) {
        final List<Victim> sorted = new ArrayList<>(chosen);
        sorted.sort(Victim.CHEAPEST);
        final List<Job> jobs = new ArrayList<>(sorted.size());
        for (final Victim v : sorted) {
            jobs.add(v.job);
        }
        return new VictimSearch.Plan(List.copyOf(jobs), VictimCost.of(jobs, st.nowMs), exact);
    }

    /** The node passes the placer's filters that no eviction changes. */
    private boolean usable(final NodeState n, final boolean[] model, final boolean gang) {
        return n != null && n.modelIndex < model.length && model[n.modelIndex]
                && n.gpuCount >= (spec.isShare() ? 1 : spec.gpusPerNode())
                && spec.network().satisfiedBy(n.infiniband, n.roce) && (!gang || n.linkOk());
    }

    private long scopeKey(final NodeState n) {
        if (spec.nodes() <= 1) {
            return n.slot;
        }
        if (spec.topologyRequired() && spec.topology().compareTo(GangScope.LEAF) <= 0) {
            return ((long) n.leafIndex << 32) | n.modelIndex;
        }
        if (spec.topologyRequired() && spec.topology() == GangScope.SPINE) {
            return ((long) st.spineOfLeaf.get(n.leafIndex) << 32) | n.modelIndex;
        }
        return n.modelIndex;
    }
}
