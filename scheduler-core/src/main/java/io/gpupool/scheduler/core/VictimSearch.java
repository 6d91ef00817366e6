package io.gpupool.scheduler.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Finds the cheapest set of running jobs whose eviction gives a blocked job a placement, and
 * evicts it (preemption), or moves it (consolidation: evict and requeue).
 *
 * <p><b>Who may be a victim.</b> Preemption: preemptible jobs of a lower priority class, or (quota
 * reclaim) of another tenant over its guaranteed quota when the blocked job's tenant stays under its
 * own. Consolidation: preemptible jobs of the same or a lower class that consolidation has not moved
 * (or placed by moving others) within {@code consolidation-cooldown-ms}; at most
 * {@code consolidation-max-evictions} per move, and at most {@code consolidation-window-max-evictions}
 * per {@code consolidation-window-ms} in the pool: a job is moved at most once per cooldown and the
 * pool moves at most its budget per window, however the queue behaves.
 *
 * <p><b>Cost</b> of a victim set S, compared lexicographically, lower is cheaper:
 * <ol>
 * <li>the level of the most important victim: max over S of (priority class, priority);</li>
 * <li>the GPU-time lost: sum over S of milli-GPUs held x stream time since the job started (since it
 *     was placed when it has not reported a start);</li>
 * <li>the number of victims;</li>
 * <li>the younger victims: the larger sum of submission sequence numbers is cheaper.</li>
 * </ol>
 * Sets of equal cost are told apart by the search order (node slots, then victims cheapest first),
 * so the choice is deterministic. Every component is monotone: a proper superset of S costs more than
 * S (1 and 2 never fall, 3 rises), so a cheapest set is always inclusion-minimal: every victim is
 * needed, and any placement the freed capacity allows uses every victim's resources. That is the
 * topology consistency the Kueue issue 5243 asks for: no job is evicted on a leaf (or node) that still
 * would not take the job.
 *
 * <p><b>Search.</b> Feasibility is decided per <i>scope</i>, the nodes among which the placer must find
 * the job's nodes: each node for a single-node job; each (leaf, GPU model) for a gang whose leaf is
 * required; each (spine, model) for a required spine; each model otherwise (a preferred topology only
 * ranks placements, any node of the model may be used). Within a scope the placer's filter is
 * reproduced exactly per node (model, network, fabric links for gangs, CPU, memory, free healthy
 * GPUs, or room on one GPU for a share), so a node fits once enough of its victims' parts are freed;
 * a gang of N fits once N nodes of the scope fit. The cheapest set is then found in three steps:
 * <ol>
 * <li>The least level: freeing every victim up to level L frees each node independently, so node n
 *     fits from its own least level L(n), a scope from the N-th smallest L(n), and the pool from the
 *     least scope level L*. No set whose victims are all below L* is feasible, so every feasible set
 *     using victims up to L* has level exactly L*; the rest compares by (lost, count, younger).</li>
 * <li>Per node, an exhaustive branch and bound over the node's victims (cheapest first) gives its
 *     cheapest sets, one per victim count (dominated ones pruned: a set that is not cheaper in lost
 *     GPU-time than one with fewer victims is never useful), with a bound that all remaining victims
 *     would make the node fit.</li>
 * <li>Per scope: a victim with parts on two or more nodes of the scope (a running gang) couples those
 *     nodes, so every subset M of such victims is enumerated (branch and bound on the cost of M); with
 *     M freed, the remaining victims each touch one node of the scope, so the cost of a set is the cost
 *     of M plus the sum of its per-node parts. Without a count limit, taking the N nodes with the
 *     cheapest per-node sets is optimal: (lost, count, -younger) add up component-wise and are ordered
 *     lexicographically, so the N smallest vectors have the smallest sum (an exchange argument). With a
 *     count limit (consolidation) a small dynamic programme over (nodes chosen, victims used) is exact;
 *     candidates are cut to the N cheapest nodes per victim count first (an exchange argument again).</li>
 * </ol>
 * With a count limit the least level found in step 1 may need too many victims, so levels are tried
 * in increasing order until one gives a set within the limit.
 *
 * <p><b>Bounds.</b> One search does at most {@link #WORK_LIMIT} elementary steps (a node fit check, a
 * subset of coupling victims visited, a candidate node combined, a programme cell), counted, not
 * timed, so it stays deterministic. When the bound cuts it short the cheapest set found so far is
 * used (or, if none yet, every victim up to L* on the first scope that reaches it); before evicting,
 * the set is checked against the placer and every victim the job still fits without is kept, so a
 * cut search can cost more than the optimum but never evicts in vain. (On a 32k-GPU pool full of
 * small preemptible jobs, searches for single nodes and for gangs stay well within the bound.)
 */
final class VictimSearch {
    /** Elementary steps one search may take (see the class comment). */
    static final int WORK_LIMIT = 100_000;

    /** Level of a node (or scope) that fits without evicting anything. */
    private static final long FREE = Long.MIN_VALUE;
    /** Level of a node (or scope) that no eviction makes fit. */
    private static final long NEVER = Long.MAX_VALUE;

    private final PoolEngine engine;
    private final PoolState st;
    private final EngineConfig cfg;
    private final PlacementSearch placer;

    // ---- scratch of the search in progress
    private JobSpec spec;
    private int need;
    private int limit;
    private int work;
    private boolean exhausted;
    private Cost best;
    private List<Victim> bestSet;

    VictimSearch(final PoolEngine engine, final PoolState st, final EngineConfig cfg, final PlacementSearch placer) {
        this.engine = engine;
        this.st = st;
        this.cfg = cfg;
        this.placer = placer;
    }

    // ------------------------------------------------------------------ cost

    /** The cost of a victim set (see the class comment); lower is cheaper. */
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
    }

    /** A chosen victim set, cheapest first; {@code exact} is false when the work bound cut the search short. */
    record Plan(List<Job> victims, Cost cost, boolean exact) {
    }

    /** (priority class, priority) as one number, increasing with importance. */
    static long level(final Job v) {
        return ((long) v.spec.priorityClass().ordinal() << 32) + ((long) v.spec.priority() - Integer.MIN_VALUE);
    }

    /** Milli-GPU x ms the job has run: what evicting it throws away. */
    static long lost(final Job v, final long nowMs) {
        final long start = v.startedAtMs > 0 ? v.startedAtMs : v.placedAtMs;
        final long ran = Math.max(0, StreamTime.minus(nowMs, start));
        return StreamTime.times(v.spec.totalGpuMilli(), ran);
    }

    static Cost costOf(final Collection<Job> set, final long nowMs) {
        long level = FREE;
        long lost = 0;
        long seq = 0;
        for (final Job v : set) {
            level = Math.max(level, level(v));
            lost = StreamTime.plus(lost, lost(v, nowMs));
            seq += v.submitSeq;
        }
        return new Cost(level, lost, set.size(), seq);
    }

    // ------------------------------------------------------------------ eligibility

    boolean anyFor(final Job j, final boolean consolidation) {
        if (consolidation && consolidationLimit() <= 0) {
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

    /** May {@code v} be evicted for {@code j}? (Package-private for the tests' brute force.) */
    boolean eligible(final Job j, final Job v, final boolean consolidation) {
        if (!v.state.holdsResources() || !v.spec.preemptible() || v == j) {
            return false;
        }
        final int jc = j.spec.priorityClass().ordinal();
        final int vc = v.spec.priorityClass().ordinal();
        if (consolidation) {
            return vc <= jc && !coolingDown(v);
        }
        if (vc < jc) {
            return true;
        }
        return vc == jc && underGuarantee(j.spec.tenant(), j.spec.totalGpuMilli())
                && overGuarantee(v.spec.tenant()) && !v.spec.tenant().equals(j.spec.tenant());
    }

    /**
     * Consolidation moved the job, or moved others for it, less than the cooldown ago. "Never moved"
     * ({@code Long.MIN_VALUE}) is a mark, not a time, so it is tested as such; the time since a move
     * saturates, so a cooldown of {@code Long.MAX_VALUE} holds a moved job for ever.
     */
    private boolean coolingDown(final Job v) {
        return cfg.consolidationCooldownMs() > 0 && v.consolidatedAtMs != Long.MIN_VALUE
                && StreamTime.minus(st.nowMs, v.consolidatedAtMs) < cfg.consolidationCooldownMs();
    }

    /** Victims one consolidation may still move: the per-move bound and what the pool's window has left. */
    int consolidationLimit() {
        int lim = cfg.consolidationMaxEvictions();
        if (cfg.consolidationWindowMaxEvictions() > 0) {
            lim = Math.min(lim, cfg.consolidationWindowMaxEvictions() - movesInWindow());
        }
        return lim;
    }

    private int movesInWindow() {
        final ArrayDeque<Long> moves = st.consolidationMoves;
        while (!moves.isEmpty() && moves.peekFirst() <= StreamTime.minus(st.nowMs, cfg.consolidationWindowMs())) {
            moves.pollFirst();
        }
        return moves.size();
    }

    private boolean underGuarantee(final String tenant, final long extraMilli) {
        return st.fairShare.heldMilli(tenant) + extraMilli <= cfg.tenant(tenant).guaranteedGpus() * 1000L;
    }

    private boolean overGuarantee(final String tenant) {
        return st.fairShare.heldMilli(tenant) > cfg.tenant(tenant).guaranteedGpus() * 1000L;
    }

    // ------------------------------------------------------------------ evict

    /** Finds, evicts and places; false (nothing changed) when no victim set frees a placement. */
    boolean evictFor(final Job j, final boolean consolidation) {
        final Plan plan = search(j, consolidation);
        if (plan == null) {
            return false;
        }
        final List<Job> set = new ArrayList<>(plan.victims());
        for (final Job v : set) {
            engine.unaccount(v);
        }
        if (placer.place(j.spec) == null) {
            for (int i = set.size() - 1; i >= 0; i--) {
                engine.reaccount(set.get(i));
            }
            return false; // cannot happen while the search mirrors the placer; never evict in vain
        }
        // keep every victim the job fits without (none when the search was exact), dearest first
        for (int i = set.size() - 1; i >= 0; i--) {
            final Job v = set.get(i);
            engine.reaccount(v);
            if (placer.place(j.spec) == null) {
                engine.unaccount(v);
            } else {
                set.remove(i);
            }
        }
        for (int i = set.size() - 1; i >= 0; i--) {
            engine.reaccount(set.get(i));
        }
        if (set.isEmpty() || (consolidation && set.size() > consolidationLimit())) {
            return false;
        }
        final Cost cost = costOf(set, st.nowMs);
        final ReasonCode code = consolidation ? ReasonCode.CONSOLIDATED : ReasonCode.PREEMPTED;
        final StringBuilder names = new StringBuilder();
        for (final Job v : set) {
            names.append(names.length() == 0 ? "" : ", ").append(v.id());
        }
        final String summary = " (" + set.size() + (set.size() == 1 ? " victim" : " victims") + ", up to "
                + PriorityClass.values()[(int) (cost.level() >>> 32)] + " priority "
                + (int) ((cost.level() & 0xFFFF_FFFFL) + Integer.MIN_VALUE) + ", "
                + cost.lostMilliGpuMs() / 1_000_000 + " GPU-s lost" + (plan.exact() ? "" : ", search bounded") + ")";
        final long now = st.nowMs;
        for (final Job v : set) {
            final Map<String, String> ev = new LinkedHashMap<>();
            ev.put("by", j.id());
            ev.put("victim_set", names.toString());
            ev.put("lost_gpu_s", Long.toString(lost(v, now) / 1_000_000));
            engine.evict(v, new Reason(code, (consolidation ? "moved to make room for " : "preempted by ") + j.id()
                    + " (" + j.spec.priorityClass() + ", " + j.spec.nodes() + " x " + j.spec.gpusPerNode() + " GPUs)",
                    ev), j.id(), true);
            if (consolidation) {
                v.consolidatedAtMs = now;
                if (cfg.consolidationWindowMaxEvictions() > 0) {
                    st.consolidationMoves.addLast(now);
                }
            }
        }
        if (consolidation) {
            j.consolidatedAtMs = now; // what was moved for it is not undone at once by moving it
        }
        final Candidate c = placer.place(j.spec);
        if (c == null) {
            throw new IllegalStateException("verified victim set did not free a placement for " + j.id());
        }
        engine.allocate(j, c, (consolidation ? "moved " : "preempted ") + names + summary);
        return true;
    }

    // ------------------------------------------------------------------ search

    /** One eligible victim. */
    private static final class Victim {
        final Job job;
        final long level;
        final long lost;
        /** Scratch: parts on the candidate nodes of the scope being solved. */
        int partsInScope;

        Victim(final Job job, final long level, final long lost) {
            this.job = job;
            this.level = level;
            this.lost = lost;
        }
    }

    /** A victim's part on one node. */
    private record Part(Victim v, PlacementPart a) {
    }

    /** A victim set on one node: one of the node's cheapest for its victim count. */
    private record Option(long lost, long seqSum, int count, List<Victim> set) {
        static final Option EMPTY = new Option(0, 0, 0, List.of());
    }

    /** Cheapest first: less lost, then younger. */
    private static final Comparator<Victim> CHEAPEST = Comparator.<Victim>comparingLong(v -> v.lost)
            .thenComparingLong(v -> -v.job.submitSeq);

    /** A candidate node: its free resources as the search frees victims' parts, and those parts. */
    private final class NodeFit {
        final NodeState n;
        final int[] used;
        final long[] gpuMem;
        long cpu;
        long mem;
        final List<Part> parts = new ArrayList<>(4);
        long minLevel;

        NodeFit(final NodeState n) {
            this.n = n;
            this.used = n.usedMilli.clone();
            this.gpuMem = n.usedGpuMemMib.clone();
            this.cpu = n.cpuFree;
            this.mem = n.memFree;
        }

        /** Frees (sign 1) or takes back (sign -1) one assignment, as unaccount/reaccount do. */
        void free(final PlacementPart a, final int sign) {
            for (final int g : a.gpus()) {
                used[g] -= sign * a.gpuMilli();
                if (a.gpuMilli() < 1000) {
                    gpuMem[g] -= sign * a.gpuMemoryMib();
                }
            }
            cpu += sign * a.cpuMilli();
            mem += sign * a.memoryMib();
        }

        /** The placer's per-node filter on the freed state (model, network and links checked before). */
        boolean fits() {
            step();
            if (cpu < spec.cpuMilliPerNode() || mem < spec.memoryMibPerNode()) {
                return false;
            }
            if (spec.isShare()) {
                for (int g = 0; g < n.gpuCount; g++) {
                    if (n.healthBits[g] == 0 && 1000 - used[g] >= spec.gpuMilli()) {
                        final int cap = n.spec.gpus().get(g).memoryMib();
                        if (spec.gpuMemoryMib() <= 0 || cap <= 0 || gpuMem[g] + spec.gpuMemoryMib() <= cap) {
                            return true;
                        }
                    }
                }
                return false;
            }
            int free = 0;
            for (int g = 0; g < n.gpuCount; g++) {
                if (used[g] == 0 && n.healthBits[g] == 0) {
                    free++;
                }
            }
            return free >= spec.gpusPerNode();
        }
    }

    private void step() {
        spend(1);
    }

    private void spend(final int steps) {
        work += steps;
        if (work > WORK_LIMIT) {
            exhausted = true;
        }
    }

    /**
     * The cheapest victim set for {@code j} (see the class comment), or null when none frees a
     * placement. Leaves the pool exactly as it was.
     */
    Plan search(final Job j, final boolean consolidation) {
        work = 0;
        exhausted = false;
        best = null;
        bestSet = null;
        spec = j.spec;
        need = Math.max(1, spec.nodes());
        limit = consolidation ? consolidationLimit() : Integer.MAX_VALUE;
        if (limit <= 0) {
            return null;
        }
        final boolean gang = spec.nodes() > 1;
        final boolean[] model = new boolean[st.models.size()];
        for (final int m : placer.models(spec)) {
            model[m] = true;
        }
        final NodeFit[] fitOf = new NodeFit[st.slots.size()];
        final TreeSet<Long> levels = new TreeSet<>();
        for (final Job v : st.activeJobs.values()) {
            if (!eligible(j, v, consolidation)) {
                continue;
            }
            final Victim w = new Victim(v, level(v), lost(v, st.nowMs));
            for (int i = 0; i < v.slots.length; i++) {
                final NodeState n = st.node(v.slots[i]);
                if (usable(n, model, gang)) {
                    if (fitOf[n.slot] == null) {
                        fitOf[n.slot] = new NodeFit(n);
                    }
                    fitOf[n.slot].parts.add(new Part(w, v.placement.get(i)));
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
                    final NodeFit f = new NodeFit(n);
                    if (f.fits()) {
                        fitOf[n.slot] = f;
                    }
                }
            }
        }
        final TreeMap<Long, List<NodeFit>> scopes = new TreeMap<>();
        for (final NodeFit f : fitOf) {
            if (f != null) {
                f.minLevel = minLevel(f);
                if (f.minLevel != NEVER) {
                    scopes.computeIfAbsent(scopeKey(f.n), k -> new ArrayList<>()).add(f);
                }
            }
        }
        final TreeMap<Long, Long> scopeLevel = new TreeMap<>();
        long start = NEVER;
        for (final Map.Entry<Long, List<NodeFit>> e : scopes.entrySet()) {
            if (e.getValue().size() >= need) {
                final long[] ls = new long[e.getValue().size()];
                for (int i = 0; i < ls.length; i++) {
                    ls[i] = e.getValue().get(i).minLevel;
                }
                Arrays.sort(ls);
                scopeLevel.put(e.getKey(), ls[need - 1]);
                start = Math.min(start, ls[need - 1]);
            }
        }
        if (start == NEVER || start == FREE) {
            return null; // nothing frees it, or it fits already (the caller asked the placer first)
        }
        long reached = start;
        for (final long lv : levels.tailSet(start, true)) {
            reached = lv;
            for (final Map.Entry<Long, Long> e : scopeLevel.entrySet()) {
                if (e.getValue() <= lv && !exhausted) {
                    solveScope(scopes.get(e.getKey()), lv);
                }
            }
            if (best != null || exhausted) {
                break;
            }
        }
        final boolean exact = !exhausted;
        List<Victim> chosen = bestSet;
        if (chosen == null && exhausted) {
            // cut short before any set was found: every victim up to the level on the first scope that has it
            chosen = new ArrayList<>();
            for (final Map.Entry<Long, Long> e : scopeLevel.entrySet()) {
                if (e.getValue() <= reached) {
                    for (final NodeFit f : scopes.get(e.getKey())) {
                        for (final Part p : f.parts) {
                            if (p.v().level <= reached && !chosen.contains(p.v())) {
                                chosen.add(p.v());
                            }
                        }
                    }
                    break;
                }
            }
        }
        if (chosen == null || chosen.isEmpty()) {
            return null;
        }
        final List<Victim> sorted = new ArrayList<>(chosen);
        sorted.sort(CHEAPEST);
        final List<Job> jobs = new ArrayList<>(sorted.size());
        for (final Victim v : sorted) {
            jobs.add(v.job);
        }
        return new Plan(List.copyOf(jobs), costOf(jobs, st.nowMs), exact);
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

    /** The least level from which freeing every victim on the node lets it take (a member of) the job. */
    private long minLevel(final NodeFit f) {
        if (f.fits()) {
            return FREE;
        }
        final List<Part> sorted = new ArrayList<>(f.parts);
        sorted.sort(Comparator.comparingLong(p -> p.v().level));
        long result = NEVER;
        int i = 0;
        while (i < sorted.size()) {
            final long lv = sorted.get(i).v().level;
            while (i < sorted.size() && sorted.get(i).v().level == lv) {
                f.free(sorted.get(i).a(), 1);
                i++;
            }
            if (f.fits()) {
                result = lv;
                break;
            }
        }
        for (int k = 0; k < i; k++) {
            f.free(sorted.get(k).a(), -1);
        }
        return result;
    }

    // ---- one scope at one level

    private List<NodeFit> cand;
    private List<List<Part>> singles;
    /** Per candidate: its options while no coupling victim touches it (computed once per scope). */
    private Option[][] cached;
    /** Per candidate: parts of the coupling victims in M on it. */
    private int[] touched;
    /** Candidates touched by M, with repeats, in the order M took them. */
    private final List<Integer> touchedList = new ArrayList<>();
    /** Candidates by their cached cheapest option (candidate order on ties); null until needed. */
    private List<Integer> baseline;

    private void solveScope(final List<NodeFit> nodes, final long lv) {
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
            for (final Part p : cand.get(0).parts) {
                if (p.v().level <= lv) {
                    least = Math.min(least, p.v().lost);
                }
            }
            if (least > best.lostMilliGpuMs()) {
                return;
            }
        }
        // victims with parts on two or more candidate nodes couple them
        final List<Victim> multis = new ArrayList<>();
        for (final NodeFit f : cand) {
            for (final Part p : f.parts) {
                if (p.v().level <= lv && ++p.v().partsInScope == 2) {
                    multis.add(p.v());
                }
            }
        }
        singles = new ArrayList<>(cand.size());
        for (final NodeFit f : cand) {
            final List<Part> s = new ArrayList<>();
            for (final Part p : f.parts) {
                if (p.v().level <= lv && p.v().partsInScope < 2) {
                    s.add(p);
                }
            }
            s.sort((a, b) -> CHEAPEST.compare(a.v(), b.v()));
            singles.add(s);
        }
        for (final NodeFit f : cand) {
            for (final Part p : f.parts) {
                p.v().partsInScope = 0;
            }
        }
        multis.sort(CHEAPEST);
        // each multi victim's parts, by candidate index
        final List<List<Integer>> multiParts = new ArrayList<>(multis.size());
        final List<List<Part>> multiPartList = new ArrayList<>(multis.size());
        for (final Victim v : multis) {
            final List<Integer> idx = new ArrayList<>();
            final List<Part> ps = new ArrayList<>();
            for (int i = 0; i < cand.size(); i++) {
                for (final Part p : cand.get(i).parts) {
                    if (p.v() == v) {
                        idx.add(i);
                        ps.add(p);
                    }
                }
            }
            multiParts.add(idx);
            multiPartList.add(ps);
        }
        cached = new Option[cand.size()][];
        touched = new int[cand.size()];
        touchedList.clear();
        baseline = null;
        if (limit == Integer.MAX_VALUE && !buildBaseline()) {
            return;
        }
        enumerateMultis(multis, multiParts, multiPartList, 0, new ArrayList<>(), 0, 0, lv);
        cand = null;
        singles = null;
        cached = null;
        touched = null;
        baseline = null;
    }

    /** Every subset M of the coupling victims, exclusion first (cheaper), pruned by the cost of M alone. */
    private void enumerateMultis(final List<Victim> multis, final List<List<Integer>> idx, final List<List<Part>> parts,
                                 final int i, final List<Victim> m, final long lostM, final long seqM, final long lv) {
        step();
        if (exhausted || m.size() > limit) {
            return;
        }
        if (best != null && new Cost(lv, lostM, m.size(), seqM).compareTo(best) >= 0) {
            return; // M alone is no cheaper; anything added costs more
        }
        if (i == multis.size()) {
            evaluate(m, lostM, seqM, lv);
            return;
        }
        enumerateMultis(multis, idx, parts, i + 1, m, lostM, seqM, lv);
        final Victim v = multis.get(i);
        for (int k = 0; k < parts.get(i).size(); k++) {
            final int c = idx.get(i).get(k);
            cand.get(c).free(parts.get(i).get(k).a(), 1);
            touched[c]++;
            touchedList.add(c);
        }
        m.add(v);
        enumerateMultis(multis, idx, parts, i + 1, m, StreamTime.plus(lostM, v.lost), seqM + v.job.submitSeq, lv);
        m.remove(m.size() - 1);
        for (int k = 0; k < parts.get(i).size(); k++) {
            final int c = idx.get(i).get(k);
            cand.get(c).free(parts.get(i).get(k).a(), -1);
            touched[c]--;
            touchedList.remove(touchedList.size() - 1);
        }
    }

    /** With M freed, the cheapest way to make {@code need} candidate nodes fit. */
    private void evaluate(final List<Victim> m, final long lostM, final long seqM, final long lv) {
        if (limit == Integer.MAX_VALUE) {
            evaluateUnlimited(m, lostM, seqM, lv);
            return;
        }
        spend(cand.size()); // combining looks at every candidate node
        final int capLeft = limit - m.size();
        final Option[][] opts = new Option[cand.size()][];
        for (int i = 0; i < cand.size() && !exhausted; i++) {
            if (touched[i] > 0) {
                opts[i] = nodeOptions(cand.get(i), singles.get(i), capLeft, lostM, m.size());
            } else {
                if (cached[i] == null) {
                    cached[i] = nodeOptions(cand.get(i), singles.get(i), limit, 0, 0);
                }
                opts[i] = cached[i];
            }
        }
        if (!exhausted) {
            combineLimited(opts, capLeft, m, lostM, seqM, lv);
        }
    }

    private void offer(final Cost c, final List<Victim> m, final List<Option> parts) {
        if (best == null || c.compareTo(best) < 0) {
            best = c;
            final List<Victim> set = new ArrayList<>(m);
            for (final Option o : parts) {
                set.addAll(o.set());
            }
            bestSet = set;
        }
    }

    /** A node's cheapest option, and the node (candidate index). */
    private record Pick(Option o, int index) {
    }

    private static final Comparator<Pick> CHEAPEST_PICK = Comparator.<Pick>comparingLong(p -> p.o().lost())
            .thenComparingInt(p -> p.o().count()).thenComparingLong(p -> -p.o().seqSum()).thenComparingInt(Pick::index);

    /**
     * No count limit: the {@code need} nodes with the cheapest per-node sets. The untouched nodes come
     * from the baseline order (its first {@code need} untouched entries are their best), so one subset
     * M costs its touched nodes and {@code need} more, not the whole scope.
     */
    private void evaluateUnlimited(final List<Victim> m, final long lostM, final long seqM, final long lv) {
        final List<Pick> picks = new ArrayList<>();
        for (int k = 0; k < touchedList.size(); k++) {
            final int i = touchedList.get(k);
            if (touchedList.indexOf(i) == k) { // each touched node once
                final Option b = lexBest(nodeOptions(cand.get(i), singles.get(i), Integer.MAX_VALUE, lostM, m.size()));
                if (b != null) {
                    picks.add(new Pick(b, i));
                }
            }
        }
        int untouched = 0;
        for (int k = 0; k < baseline.size() && untouched < need; k++) {
            step();
            final int i = baseline.get(k);
            if (touched[i] == 0) {
                picks.add(new Pick(lexBest(cached[i]), i));
                untouched++;
            }
        }
        if (exhausted || picks.size() < need) {
            return;
        }
        picks.sort(CHEAPEST_PICK);
        long lost = lostM;
        long seq = seqM;
        int count = m.size();
        final List<Option> chosen = new ArrayList<>(need);
        for (final Pick p : picks.subList(0, need)) {
            chosen.add(p.o());
            lost = StreamTime.plus(lost, p.o().lost());
            seq += p.o().seqSum();
            count += p.o().count();
        }
        offer(new Cost(lv, lost, count, seq), m, chosen);
    }

    /** Every candidate's options with nothing of M freed, and their order; false when cut short. */
    private boolean buildBaseline() {
        spend(cand.size());
        final List<Pick> all = new ArrayList<>();
        for (int i = 0; i < cand.size() && !exhausted; i++) {
            cached[i] = nodeOptions(cand.get(i), singles.get(i), Integer.MAX_VALUE, 0, 0);
            final Option b = lexBest(cached[i]);
            if (b != null) {
                all.add(new Pick(b, i));
            }
        }
        if (exhausted) {
            return false;
        }
        all.sort(CHEAPEST_PICK);
        baseline = new ArrayList<>(all.size());
        for (final Pick p : all) {
            baseline.add(p.index());
        }
        return true;
    }

    /** The node's cheapest option, or null. */
    private static Option lexBest(final Option[] o) {
        Option b = null;
        for (int c = 0; c < o.length; c++) {
            if (o[c] != null && (b == null || o[c].lost() < b.lost())) {
                b = o[c]; // counts rise with c: on equal lost the earlier (fewer victims) stays
            }
        }
        return b;
    }

    /**
     * A count limit: a programme over (nodes chosen, victims used), each cell the least lost (then the
     * youngest); candidates first cut to the {@code need} cheapest nodes per victim count.
     */
    private void combineLimited(final Option[][] opts, final int cap, final List<Victim> m, final long lostM,
                                final long seqM, final long lv) {
        if (cap < 0) {
            return;
        }
        final boolean[] keep = new boolean[opts.length];
        for (int c = 0; c <= cap; c++) {
            final List<Integer> with = new ArrayList<>();
            for (int i = 0; i < opts.length; i++) {
                if (c < opts[i].length && opts[i][c] != null) {
                    with.add(i);
                }
            }
            final int cc = c;
            with.sort(Comparator.<Integer>comparingLong(i -> opts[i][cc].lost()).thenComparingLong(i -> -opts[i][cc].seqSum()));
            for (int k = 0; k < Math.min(need, with.size()); k++) {
                keep[with.get(k)] = true;
            }
        }
        final List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < opts.length; i++) {
            if (keep[i]) {
                kept.add(i);
            }
        }
        if (kept.size() < need) {
            return;
        }
        final long[][] lost = new long[need + 1][cap + 1];
        final long[][] seq = new long[need + 1][cap + 1];
        final boolean[][] reach = new boolean[need + 1][cap + 1];
        reach[0][0] = true;
        final int[][][] choice = new int[kept.size()][][];
        for (int t = 0; t < kept.size(); t++) {
            final Option[] o = opts[kept.get(t)];
            final int[][] ch = new int[need + 1][cap + 1];
            for (final int[] row : ch) {
                Arrays.fill(row, -1);
            }
            choice[t] = ch;
            for (int jn = need - 1; jn >= 0; jn--) {
                for (int u = cap; u >= 0; u--) {
                    if (!reach[jn][u]) {
                        continue;
                    }
                    for (int c = 0; c < o.length && u + c <= cap; c++) {
                        if (o[c] == null) {
                            continue;
                        }
                        step();
                        final long l = StreamTime.plus(lost[jn][u], o[c].lost());
                        final long s = seq[jn][u] + o[c].seqSum();
                        if (!reach[jn + 1][u + c] || l < lost[jn + 1][u + c]
                                || (l == lost[jn + 1][u + c] && s > seq[jn + 1][u + c])) {
                            reach[jn + 1][u + c] = true;
                            lost[jn + 1][u + c] = l;
                            seq[jn + 1][u + c] = s;
                            ch[jn + 1][u + c] = c;
                        }
                    }
                }
            }
            if (exhausted) {
                return;
            }
        }
        int bestU = -1;
        Cost bestHere = null;
        for (int u = 0; u <= cap; u++) {
            if (reach[need][u]) {
                final Cost c = new Cost(lv, StreamTime.plus(lostM, lost[need][u]), m.size() + u, seqM + seq[need][u]);
                if (bestHere == null || c.compareTo(bestHere) < 0) {
                    bestHere = c;
                    bestU = u;
                }
            }
        }
        if (bestHere == null || (best != null && bestHere.compareTo(best) >= 0)) {
            return;
        }
        final List<Option> chosen = new ArrayList<>();
        int jn = need;
        int u = bestU;
        for (int t = kept.size() - 1; t >= 0 && jn > 0; t--) {
            final int c = choice[t][jn][u];
            if (c >= 0) {
                chosen.add(opts[kept.get(t)][c]);
                jn--;
                u -= c;
            }
        }
        offer(bestHere, m, chosen);
    }

    /**
     * The node's cheapest sets of its own victims that make it fit, one per victim count (index), up
     * to {@code cap}; dominated ones (no less lost than a set with fewer victims) are left out.
     */
    private Option[] nodeOptions(final NodeFit f, final List<Part> parts, final int cap, final long lostM,
                                 final int countM) {
        final Option[] out = new Option[Math.min(cap, parts.size()) + 1];
        if (f.fits()) {
            out[0] = Option.EMPTY;
            return out;
        }
        branch(f, parts, 0, new ArrayList<>(), 0, 0, out, cap == Integer.MAX_VALUE, lostM, countM);
        return out;
    }

    private void branch(final NodeFit f, final List<Part> parts, final int i, final List<Victim> chosen,
                        final long lost, final long seq, final Option[] out, final boolean unlimited,
                        final long lostM, final int countM) {
        final int c0 = chosen.size();
        if (exhausted || c0 + 1 >= out.length || i >= parts.size()) {
            return;
        }
        for (int c = 0; c <= c0; c++) {
            if (out[c] != null && out[c].lost() <= lost) {
                return; // anything added has more victims and no less lost
            }
        }
        if (unlimited) {
            final Option b = lexBest(out);
            if (b != null && (lost > b.lost() || (lost == b.lost() && c0 + 1 > b.count()))) {
                return;
            }
        }
        if (best != null) {
            final long l = StreamTime.plus(lostM, lost);
            if (l > best.lostMilliGpuMs() || (l == best.lostMilliGpuMs() && countM + c0 + 1 > best.victims())) {
                return; // no better than the best whole set, even if the other nodes cost nothing
            }
        }
        for (int k = i; k < parts.size(); k++) {
            f.free(parts.get(k).a(), 1);
        }
        final boolean can = f.fits();
        for (int k = i; k < parts.size(); k++) {
            f.free(parts.get(k).a(), -1);
        }
        if (!can) {
            return; // even all the rest would not make it fit
        }
        final Part p = parts.get(i);
        f.free(p.a(), 1);
        chosen.add(p.v());
        final long l2 = StreamTime.plus(lost, p.v().lost);
        final long s2 = seq + p.v().job.submitSeq;
        final boolean fits = f.fits();
        if (fits) {
            final Option o = out[c0 + 1];
            if (o == null || l2 < o.lost() || (l2 == o.lost() && s2 > o.seqSum())) {
                out[c0 + 1] = new Option(l2, s2, c0 + 1, List.copyOf(chosen));
            }
        } else {
            branch(f, parts, i + 1, chosen, l2, s2, out, unlimited, lostM, countM);
        }
        chosen.remove(c0);
        f.free(p.a(), -1);
        if (!fits) {
            // when p completes the set, a set without p adds later parts instead: each no cheaper than p
            // (cheapest first), so it is no cheaper with as many victims, and dominated with more
            branch(f, parts, i + 1, chosen, lost, seq, out, unlimited, lostM, countM);
        }
    }
}
