package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * When and where could a blocked whole-GPU job start if running jobs end as estimated? For every
 * node of an allowed model: the first expected end after which the node has the GPUs, CPU and
 * memory the job needs per node. Then per leaf (or spine, or pool, by the job's topology) the
 * time by which enough such nodes are ready. No placement is simulated, and the nodes are kept in
 * that order per shape between plans ({@link ReadyOrder}): with a standing queue nearly every release
 * replans the blocked head, and a walk over every node each time made a decision cost the pool.
 */
final class ReservationPlanner {
    private final PoolState st;
    private final PlacementSearch placer;
    private final ToLongFunction<Job> expectedEnd;

    ReservationPlanner(final PoolState st, final PlacementSearch placer, final ToLongFunction<Job> expectedEnd) {
        this.st = st;
        this.placer = placer;
        this.expectedEnd = expectedEnd;
    }

    /** Slots above this do not fit the packed sort key (time << 20 | slot); such pools get no reservation. */
    private static final int MAX_SLOTS = 1 << 20;

    /** Per shape key, the candidate nodes in plan order; insertion order, the oldest dropped first. */
    private final LinkedHashMap<Object, ReadyOrder> orders = new LinkedHashMap<>();
    private long[] ends = new long[16];
    private Job[] jobs = new Job[16];
    private int[] milli = new int[NodeSpec.MAX_GPUS_PER_NODE];

    /** Null when no set of running jobs ending frees the room (e.g. unhealthy GPUs are in the way). */
    Reservation plan(final Job j) {
        final JobSpec s = j.spec;
        if (st.slots.size() >= MAX_SLOTS) {
            return null;
        }
        final ReadyOrder order = orderFor(s);
        if (s.nodes() <= 1) {
            final Iterator<Integer> first = order.iterator();
            if (!first.hasNext()) {
                return null;
            }
            final int slot = first.next();
            if (ReadyOrder.tooFar(order.waitOf(slot))) {
                return null;
            }
            return new Reservation(j.id(), StreamTime.plus(st.nowMs, order.waitOf(slot)), List.of(st.node(slot).id()));
        }
        if (order.size() < s.nodes()) {
            return null;
        }
        long bestTime = Long.MAX_VALUE;
        GangScope bestScope = null;
        int bestUnit = -1;
        for (final GangScope scope : scopes(s)) {
            final int[] unitOut = new int[1];
            final long t = earliest(order, s.nodes(), scope, unitOut);
            if (t < bestTime) {
                bestTime = t;
                bestScope = scope;
                bestUnit = unitOut[0];
            }
        }
        if (bestScope == null) {
            return null;
        }
        final List<String> nodes = new ArrayList<>(s.nodes());
        for (final Iterator<Integer> it = order.iterator(); it.hasNext() && nodes.size() < s.nodes(); ) {
            final NodeState n = st.node(it.next());
            if (unitOf(n, bestScope) == bestUnit) {
                nodes.add(n.id());
            }
        }
        return new Reservation(j.id(), StreamTime.plus(st.nowMs, bestTime), nodes);
    }

    /**
     * The candidate nodes of this shape in plan order, kept from the last plan of the shape and
     * brought up to date, or worked out from every node when the shape has none yet.
     */
    private ReadyOrder orderFor(final JobSpec s) {
        final Object key = QueuePass.shapeKey(s);
        ReadyOrder order = orders.get(key);
        if (order != null) {
            order.refresh();
            return order;
        }
        final boolean multi = s.nodes() > 1;
        final boolean[] member = new boolean[st.slots.size()];
        for (final int m : placer.models(s)) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                for (final int slot : g.members) {
                    final NodeState n = st.node(slot);
                    member[slot] = s.network().satisfiedBy(n.infiniband, n.roce) && (!multi || n.linkOk());
                }
            }
        }
        final int k = s.gpusPerNode();
        order = new ReadyOrder(st, member, n -> readyAt(n, s, k), n -> n.ready[k].validUntil);
        orders.put(key, order);
        if (orders.size() > StandingPlans.MAX_PLANS) {
            final Iterator<Object> oldest = orders.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
        return order;
    }

    /**
     * Capacity may be lost or the inventory or fabric changed (what drops the standing plans): the
     * nodes a shape may use can differ, so the orders are worked out afresh when next needed.
     */
    void forget() {
        orders.clear();
    }

    private static List<GangScope> scopes(final JobSpec s) {
        return s.nodes() == 1 ? List.of(GangScope.NODE) : PlacementSearch.scopes(s);
    }

    private static int unitOf(final NodeState n, final GangScope scope) {
        return scope == GangScope.LEAF ? n.leafIndex : scope == GangScope.SPINE ? n.spineIndex : 0;
    }

    /** Earliest (relative) time {@code want} ready nodes share one unit of the scope; its unit in unitOut. */
    private long earliest(final ReadyOrder order, final int want, final GangScope scope, final int[] unitOut) {
        final int units = scope == GangScope.LEAF ? st.leaves.size() : scope == GangScope.SPINE ? st.spines.size() : 1;
        final int[] seen = new int[Math.max(1, units)];
        for (final int slot : order) {
            if (ReadyOrder.tooFar(order.waitOf(slot))) {
                break; // and so is every node after it
            }
            final int u = unitOf(st.node(slot), scope);
            if (++seen[u] == want) {
                unitOut[0] = u;
                return order.waitOf(slot); // the order is by time: the first unit to fill is the earliest
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * Cached per node: valid while the node is unchanged, the request is the same and stream time has
     * not reached the earliest estimated end still ahead. A job already overdue ends "now" whenever
     * asked: it stays first in the walk (ties by submission, as now), so the answer keeps its form
     * (now, or a later end that has not moved) until the next job falls due. Counting overdue jobs in
     * the bound made it the current time, and every plan in a pool of overrunning jobs walked every
     * job of every node again.
     */
    private long readyAt(final NodeState n, final JobSpec s, final int k) {
        NodeState.Readiness r = n.ready[k];
        if (r == null) {
            r = new NodeState.Readiness();
            n.ready[k] = r;
        }
        if (r.version == n.version && r.cpu == s.cpuMilliPerNode() && r.mem == s.memoryMibPerNode()
                && st.nowMs < r.validUntil) {
            // "ready at a time already past" means ready now
            return r.at == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(st.nowMs, r.at);
        }
        long validUntil = Long.MAX_VALUE;
        for (final Job j : n.jobs) {
            final long end = expectedEnd.applyAsLong(j);
            if (end > st.nowMs) {
                validUntil = Math.min(validUntil, end);
            }
        }
        final long t = computeReadyAt(n, s, k);
        r.version = n.version;
        r.cpu = s.cpuMilliPerNode();
        r.mem = s.memoryMibPerNode();
        r.at = t;
        r.validUntil = validUntil;
        return t;
    }

    /** Expected time the node has k free healthy GPUs and the CPU and memory; MAX_VALUE if never. */
    private long computeReadyAt(final NodeState n, final JobSpec s, final int k) {
        int gpus = n.freeWhole;
        long cpu = n.cpuFree;
        long mem = n.memFree;
        if (gpus >= k && cpu >= s.cpuMilliPerNode() && mem >= s.memoryMibPerNode()) {
            return st.nowMs;
        }
        if (n.gpuCount - n.unhealthyCount() < k) {
            return Long.MAX_VALUE;
        }
        final int count = n.jobs.size();
        if (ends.length < count) {
            ends = new long[count * 2];
            jobs = new Job[count * 2];
        }
        // insertion sort by (expected end, submission): a node holds few jobs
        for (int i = 0; i < count; i++) {
            final Job r = n.jobs.get(i);
            final long e = expectedEnd.applyAsLong(r);
            int at = i;
            while (at > 0 && (ends[at - 1] > e || (ends[at - 1] == e && jobs[at - 1].submitSeq > r.submitSeq))) {
                ends[at] = ends[at - 1];
                jobs[at] = jobs[at - 1];
                at--;
            }
            ends[at] = e;
            jobs[at] = r;
        }
        System.arraycopy(n.usedMilli, 0, milli, 0, n.gpuCount);
        try {
            return walk(n, s, k, count, gpus, cpu, mem);
        } finally {
            Arrays.fill(jobs, 0, count, null); // keep no finished job reachable from the scratch array
        }
    }

    private long walk(final NodeState n, final JobSpec s, final int k, final int count, int gpus, long cpu, long mem) {
        for (int i = 0; i < count; i++) {
            final Job r = jobs[i];
            for (int p = 0; p < r.slots.length; p++) {
                if (r.slots[p] != n.slot) {
                    continue;
                }
                final PlacementPart a = r.placement.get(p);
                for (final int g : a.gpus()) {
                    milli[g] -= a.gpuMilli();
                    if (milli[g] == 0 && n.healthBits[g] == 0) {
                        gpus++;
                    }
                }
                cpu += a.cpuMilli();
                mem += a.memoryMib();
            }
            if (gpus >= k && cpu >= s.cpuMilliPerNode() && mem >= s.memoryMibPerNode()) {
                return ends[i];
            }
        }
        return Long.MAX_VALUE;
    }
}
