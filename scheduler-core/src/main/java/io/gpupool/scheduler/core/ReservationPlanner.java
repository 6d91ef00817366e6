package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * When and where could a blocked whole-GPU job start if running jobs end as estimated? For every
 * node of an allowed model: the first expected end after which the node has the GPUs, CPU and
 * memory the job needs per node. Then per leaf (or spine, or pool, by the job's topology) the
 * time by which enough such nodes are ready. One walk over the nodes and their jobs: no placement
 * is simulated, so a pass with a large pool and a long queue stays cheap.
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

    private long[] ends = new long[16];
    private Job[] jobs = new Job[16];
    private int[] milli = new int[NodeSpec.MAX_GPUS_PER_NODE];

    /** Null when no set of running jobs ending frees the room (e.g. unhealthy GPUs are in the way). */
    Reservation plan(final Job j) {
        final JobSpec s = j.spec;
        final int k = s.gpusPerNode();
        final boolean multi = s.nodes() > 1;
        if (st.slots.size() >= MAX_SLOTS) {
            return null;
        }
        long[] keys = new long[64];
        int count = 0;
        long first = Long.MAX_VALUE; // a single-node job needs only the earliest node: no sort
        for (final int m : placer.models(s)) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                for (final int slot : g.members) {
                    final NodeState n = st.node(slot);
                    if (!s.network().satisfiedBy(n.infiniband, n.roce) || (multi && !n.linkOk())) {
                        continue;
                    }
                    final long t = readyAt(n, s, k);
                    final long wait = StreamTime.minus(t, st.nowMs); // saturated: too far to pack
                    if (t != Long.MAX_VALUE && wait < (Long.MAX_VALUE >> 21)) {
                        if (!multi) {
                            first = Math.min(first, (wait << 20) | slot);
                            continue;
                        }
                        if (count == keys.length) {
                            keys = Arrays.copyOf(keys, count * 2);
                        }
                        // relative time keeps the packed key small; ties go to pool order
                        keys[count++] = (wait << 20) | slot;
                    }
                }
            }
        }
        if (!multi) {
            return first == Long.MAX_VALUE ? null : new Reservation(j.id(), StreamTime.plus(st.nowMs, first >>> 20),
                    List.of(st.node((int) (first & (MAX_SLOTS - 1))).id()));
        }
        if (count < s.nodes()) {
            return null;
        }
        Arrays.sort(keys, 0, count);
        long bestTime = Long.MAX_VALUE;
        GangScope bestScope = null;
        int bestUnit = -1;
        for (final GangScope scope : scopes(s)) {
            final int[] unitOut = new int[1];
            final long t = earliest(keys, count, s.nodes(), scope, unitOut);
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
        for (int i = 0; i < count && nodes.size() < s.nodes(); i++) {
            final NodeState n = st.node((int) (keys[i] & (MAX_SLOTS - 1)));
            if (unitOf(n, bestScope) == bestUnit) {
                nodes.add(n.id());
            }
        }
        return new Reservation(j.id(), StreamTime.plus(st.nowMs, bestTime), nodes);
    }

    private static List<GangScope> scopes(final JobSpec s) {
        return s.nodes() == 1 ? List.of(GangScope.NODE) : PlacementSearch.scopes(s);
    }

    private static int unitOf(final NodeState n, final GangScope scope) {
        return scope == GangScope.LEAF ? n.leafIndex : scope == GangScope.SPINE ? n.spineIndex : 0;
    }

    /** Earliest (relative) time {@code want} ready nodes share one unit of the scope; its unit in unitOut. */
    private long earliest(final long[] keys, final int count, final int want, final GangScope scope,
                          final int[] unitOut) {
        final int units = scope == GangScope.LEAF ? st.leaves.size() : scope == GangScope.SPINE ? st.spines.size() : 1;
        final int[] seen = new int[Math.max(1, units)];
        for (int i = 0; i < count; i++) {
            final NodeState n = st.node((int) (keys[i] & (MAX_SLOTS - 1)));
            final int u = unitOf(n, scope);
            if (++seen[u] == want) {
                unitOut[0] = u;
                return keys[i] >>> 20; // keys are in time order: the first unit to fill is the earliest
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * Cached per node: valid while the node is unchanged, the request is the same and stream time has
     * not reached the earliest estimated end used (after that an overdue job's end moves with time).
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
            validUntil = Math.min(validUntil, expectedEnd.applyAsLong(j));
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
