package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * When and where could a blocked whole-GPU job start if running jobs end as estimated? For every
 * node of an allowed model: the first expected end after which the node has the GPUs, CPU and
 * memory the job needs per node. Then per leaf (or spine, or pool, by the job's topology) the
 * time by which enough such nodes are ready. One walk over the nodes and their jobs: no placement
 * is simulated, so a pass with a large pool and a long queue stays cheap.
 */
final class ReservationPlanner {
    private final PoolState st;
    private final Placer placer;
    private final java.util.function.ToLongFunction<Job> expectedEnd;

    ReservationPlanner(final PoolState st, final Placer placer, final java.util.function.ToLongFunction<Job> expectedEnd) {
        this.st = st;
        this.placer = placer;
        this.expectedEnd = expectedEnd;
    }

    /** Null when no set of running jobs ending frees the room (e.g. unhealthy GPUs are in the way). */
    Reservation plan(final Job j) {
        final JobSpec s = j.spec;
        final int k = s.gpusPerNode();
        final boolean multi = s.nodes() > 1;
        final List<long[]> ready = new ArrayList<>(); // {time, slot, leaf, spine}
        for (final int m : placer.models(s)) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                for (final int slot : g.members) {
                    final NodeState n = st.node(slot);
                    if (!s.network().satisfiedBy(n.infiniband, n.roce) || (multi && !n.linkOk())) {
                        continue;
                    }
                    final long t = readyAt(n, s, k);
                    if (t != Long.MAX_VALUE) {
                        ready.add(new long[] {t, slot, n.leafIndex, n.spineIndex});
                    }
                }
            }
        }
        if (ready.size() < s.nodes()) {
            return null;
        }
        // by readiness, then pool order: deterministic
        ready.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long bestTime = Long.MAX_VALUE;
        List<Integer> bestSlots = null;
        for (final TopologyScope scope : scopes(s)) {
            final List<Integer> slots = new ArrayList<>();
            final long t = earliest(ready, s.nodes(), scope, slots);
            if (t < bestTime) {
                bestTime = t;
                bestSlots = slots;
            }
        }
        if (bestSlots == null) {
            return null;
        }
        final List<String> nodes = new ArrayList<>(bestSlots.size());
        for (final int slot : bestSlots) {
            nodes.add(st.node(slot).id());
        }
        return new Reservation(j.id(), bestTime, nodes);
    }

    private static List<TopologyScope> scopes(final JobSpec s) {
        return s.nodes() == 1 ? List.of(TopologyScope.NODE) : Placer.scopes(s);
    }

    /** Earliest time {@code want} ready nodes share one unit of the scope; fills {@code slots}. */
    private static long earliest(final List<long[]> ready, final int want, final TopologyScope scope,
                                 final List<Integer> slots) {
        final int key = scope == TopologyScope.LEAF ? 2 : scope == TopologyScope.SPINE ? 3 : -1;
        final java.util.TreeMap<Long, List<long[]>> units = new java.util.TreeMap<>();
        for (final long[] r : ready) {
            final List<long[]> unit = units.computeIfAbsent(key < 0 ? 0L : r[key], u -> new ArrayList<>());
            unit.add(r);
            if (unit.size() == want) {
                for (final long[] x : unit) {
                    slots.add((int) x[1]);
                }
                return r[0]; // ready is in time order: the first unit to fill is the earliest
            }
        }
        return Long.MAX_VALUE;
    }

    /** Expected time the node has k free healthy GPUs and the CPU and memory; MAX_VALUE if never. */
    private long readyAt(final NodeState n, final JobSpec s, final int k) {
        int gpus = n.freeWhole;
        long cpu = n.cpuFree;
        long mem = n.memFree;
        if (gpus >= k && cpu >= s.cpuMilliPerNode() && mem >= s.memoryMibPerNode()) {
            return st.nowMs;
        }
        final int count = n.jobs.size();
        final long[] ends = new long[count];
        final Job[] jobs = n.jobs.toArray(new Job[0]);
        for (int i = 0; i < count; i++) {
            ends[i] = expectedEnd.applyAsLong(jobs[i]);
        }
        final Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> ends[a] != ends[b] ? Long.compare(ends[a], ends[b])
                : Long.compare(jobs[a].submitSeq, jobs[b].submitSeq));
        final int[] milli = n.usedMilli.clone();
        for (final int i : order) {
            final Job r = jobs[i];
            for (int p = 0; p < r.slots.length; p++) {
                if (r.slots[p] != n.slot) {
                    continue;
                }
                final NodeAssignment a = r.placement.get(p);
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
