package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The cheapest victim set within one scope at one level, kept across the scopes and levels of one
 * search ({@link #best()}). A victim with parts on two or more nodes of the scope (a running gang)
 * couples those nodes, so every subset M of such victims is enumerated (branch and bound on the cost of
 * M); with M freed, the remaining victims each touch one node of the scope, so the cost of a set is the
 * cost of M plus the sum of its per-node parts ({@link NodeOptionSearch}). Without a count limit,
 * taking the {@code need} nodes with the cheapest per-node sets is optimal: (lost, count, -younger) add
 * up component-wise and are ordered lexicographically, so the N smallest vectors have the smallest sum
 * (an exchange argument). With a count limit, {@link LimitedCombination}.
 */
final class ScopeSolver {
    /** A node's cheapest option, and the node (candidate index). */
    private record Pick(NodeOption o, int index) {
    }

    private static final Comparator<Pick> CHEAPEST_PICK = Comparator.<Pick>comparingLong(p -> p.o().lost())
            .thenComparingInt(p -> p.o().count()).thenComparingLong(p -> -p.o().seqSum()).thenComparingInt(Pick::index);

    /** A coupling victim, and its parts on the candidate nodes with their candidate indexes. */
    private record Coupling(Victim v, List<Integer> nodes, List<VictimPart> parts) {
    }

    private final int need;
    private final int limit;
    private final SearchWork work;
    private final NodeOptionSearch perNode;
    private VictimSearch.Cost best;
    private List<Victim> bestSet;

    // ---- scratch of the scope in progress
    private List<NodeFit> cand;
    private List<List<VictimPart>> singles;
    /** M empty: what a node's options are offset by while no coupling victim touches it. */
    private VictimSearch.Cost uncoupled;
    /** Per candidate: its options while no coupling victim touches it (computed once per scope). */
    private NodeOption[][] cached;
    /** Per candidate: parts of the coupling victims in M on it. */
    private int[] touched;
    /** Candidates touched by M, with repeats, in the order M took them. */
    private final List<Integer> touchedList = new ArrayList<>();
    /** Candidates by their cached cheapest option (candidate order on ties); null until needed. */
    private List<Integer> baseline;

    ScopeSolver(final int need, final int limit, final SearchWork work) {
        this.need = need;
        this.limit = limit;
        this.work = work;
        this.perNode = new NodeOptionSearch(work);
    }

    /** The cheapest set found so far, or null. */
    VictimSearch.Cost best() {
        return best;
    }

    /** The victims of {@link #best()}, or null. */
    List<Victim> bestSet() {
        return bestSet;
    }

    /** Looks for a set cheaper than the best so far among the victims up to {@code lv} on {@code nodes}. */
    void solve(final List<NodeFit> nodes, final long lv) {
        cand = new ArrayList<>();
        for (final NodeFit f : nodes) {
            if (f.minLevel <= lv) {
                cand.add(f);
            }
        }
        if (cand.size() < need) {
            return;
        }
        if (need == 1 && best != null) {
            // lower bound of any set on this node: its cheapest victim
            long least = Long.MAX_VALUE;
            for (final VictimPart p : cand.get(0).parts) {
                if (p.v().level <= lv) {
                    least = Math.min(least, p.v().lost);
                }
            }
            if (least > best.lostMilliGpuMs()) {
                return;
            }
        }
        final List<Coupling> couplings = couplings(lv);
        uncoupled = new VictimSearch.Cost(lv, 0, 0, 0);
        cached = new NodeOption[cand.size()][];
        touched = new int[cand.size()];
        touchedList.clear();
        baseline = null;
        if (limit == Integer.MAX_VALUE && !buildBaseline()) {
            return;
        }
        enumerateCouplings(couplings, 0, new ArrayList<>(), uncoupled);
        cand = null;
        singles = null;
        cached = null;
        touched = null;
        baseline = null;
    }

    /**
     * The victims up to {@code lv} with parts on two or more candidates, cheapest first; the others go
     * to {@link #singles}, per candidate, cheapest first.
     */
    private List<Coupling> couplings(final long lv) {
        final List<Victim> multis = new ArrayList<>();
        for (final NodeFit f : cand) {
            for (final VictimPart p : f.parts) {
                if (p.v().level <= lv && ++p.v().partsInScope == 2) {
                    multis.add(p.v());
                }
            }
        }
        singles = new ArrayList<>(cand.size());
        for (final NodeFit f : cand) {
            final List<VictimPart> s = new ArrayList<>();
            for (final VictimPart p : f.parts) {
                if (p.v().level <= lv && p.v().partsInScope < 2) {
                    s.add(p);
                }
            }
            s.sort((a, b) -> Victim.CHEAPEST.compare(a.v(), b.v()));
            singles.add(s);
        }
        for (final NodeFit f : cand) {
            for (final VictimPart p : f.parts) {
                p.v().partsInScope = 0;
            }
        }
        multis.sort(Victim.CHEAPEST);
        final List<Coupling> out = new ArrayList<>(multis.size());
        for (final Victim v : multis) {
            final List<Integer> idx = new ArrayList<>();
            final List<VictimPart> ps = new ArrayList<>();
            for (int i = 0; i < cand.size(); i++) {
                for (final VictimPart p : cand.get(i).parts) {
                    if (p.v() == v) {
                        idx.add(i);
                        ps.add(p);
                    }
                }
            }
            out.add(new Coupling(v, idx, ps));
        }
        return out;
    }

    /**
     * Every subset M of the coupling victims, exclusion first (cheaper), pruned by the cost of M alone
     * ({@code costM}: the level being solved, and what M loses, counts and sums).
     */
    private void enumerateCouplings(final List<Coupling> couplings, final int i, final List<Victim> m,
                                    final VictimSearch.Cost costM) {
        work.step();
        if (work.exhausted() || m.size() > limit) {
            return;
        }
        if (best != null && costM.compareTo(best) >= 0) {
            return; // M alone is no cheaper; anything added costs more
        }
        if (i == couplings.size()) {
            evaluate(m, costM);
            return;
        }
        enumerateCouplings(couplings, i + 1, m, costM);
        final Coupling k = couplings.get(i);
        take(k, 1);
        m.add(k.v());
        enumerateCouplings(couplings, i + 1, m, costM.plus(k.v().lost, 1, k.v().job.submitSeq));
        m.remove(m.size() - 1);
        take(k, -1);
    }

    /** Frees (sign 1) or takes back (sign -1) a coupling victim's parts on the candidates. */
    private void take(final Coupling k, final int sign) {
        for (int p = 0; p < k.parts().size(); p++) {
            final int c = k.nodes().get(p);
            cand.get(c).free(k.parts().get(p).a(), sign);
            touched[c] += sign;
            if (sign > 0) {
                touchedList.add(c);
            } else {
                touchedList.remove(touchedList.size() - 1);
            }
        }
    }

    /** With M freed, the cheapest way to make {@code need} candidate nodes fit. */
    private void evaluate(final List<Victim> m, final VictimSearch.Cost costM) {
        if (limit == Integer.MAX_VALUE) {
            evaluateUnlimited(m, costM);
            return;
        }
        work.spend(cand.size()); // combining looks at every candidate node
        final int capLeft = limit - m.size();
        final NodeOption[][] opts = new NodeOption[cand.size()][];
        for (int i = 0; i < cand.size() && !work.exhausted(); i++) {
            if (touched[i] > 0) {
                opts[i] = perNode.options(cand.get(i), singles.get(i), capLeft, costM, best);
            } else {
                if (cached[i] == null) {
                    cached[i] = perNode.options(cand.get(i), singles.get(i), limit, uncoupled, best);
                }
                opts[i] = cached[i];
            }
        }
        if (!work.exhausted()) {
            final LimitedCombination.Combination c = LimitedCombination.cheapest(opts, need, capLeft, costM, work);
            if (c != null) {
                offer(c.cost(), m, c.chosen());
            }
        }
    }

    private void offer(final VictimSearch.Cost c, final List<Victim> m, final List<NodeOption> parts) {
        if (best == null || c.compareTo(best) < 0) {
            best = c;
            final List<Victim> set = new ArrayList<>(m);
            for (final NodeOption o : parts) {
                set.addAll(o.set());
            }
            bestSet = set;
        }
    }

    /**
     * No count limit: the {@code need} nodes with the cheapest per-node sets. The untouched nodes come
     * from the baseline order (its first {@code need} untouched entries are their best), so one subset
     * M costs its touched nodes and {@code need} more, not the whole scope.
     */
    private void evaluateUnlimited(final List<Victim> m, final VictimSearch.Cost costM) {
        final List<Pick> picks = new ArrayList<>();
        for (int k = 0; k < touchedList.size(); k++) {
            final int i = touchedList.get(k);
            if (touchedList.indexOf(i) == k) { // each touched node once
                final NodeOption b = NodeOption.cheapest(
                        perNode.options(cand.get(i), singles.get(i), Integer.MAX_VALUE, costM, best));
                if (b != null) {
                    picks.add(new Pick(b, i));
                }
            }
        }
        int untouched = 0;
        for (int k = 0; k < baseline.size() && untouched < need; k++) {
            work.step();
            final int i = baseline.get(k);
            if (touched[i] == 0) {
                picks.add(new Pick(NodeOption.cheapest(cached[i]), i));
                untouched++;
            }
        }
        if (work.exhausted() || picks.size() < need) {
            return;
        }
        picks.sort(CHEAPEST_PICK);
        VictimSearch.Cost cost = costM;
        final List<NodeOption> chosen = new ArrayList<>(need);
        for (final Pick p : picks.subList(0, need)) {
            chosen.add(p.o());
            cost = cost.plus(p.o().lost(), p.o().count(), p.o().seqSum());
        }
        offer(cost, m, chosen);
    }

    /** Every candidate's options with nothing of M freed, and their order; false when cut short. */
    private boolean buildBaseline() {
        work.spend(cand.size());
        final List<Pick> all = new ArrayList<>();
        for (int i = 0; i < cand.size() && !work.exhausted(); i++) {
            cached[i] = perNode.options(cand.get(i), singles.get(i), Integer.MAX_VALUE, uncoupled, best);
            final NodeOption b = NodeOption.cheapest(cached[i]);
            if (b != null) {
                all.add(new Pick(b, i));
            }
        }
        if (work.exhausted()) {
            return false;
        }
        all.sort(CHEAPEST_PICK);
        baseline = new ArrayList<>(all.size());
        for (final Pick p : all) {
            baseline.add(p.index());
        }
        return true;
    }
}
