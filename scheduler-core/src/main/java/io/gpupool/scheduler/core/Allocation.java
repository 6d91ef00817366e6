package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What placements take from their nodes: placing a job on a candidate (PLACED decision, ALLOCATE
 * instructions), freeing what it holds, and taking a job's resources off and back on for the queue
 * pass's what-if searches. Keeps each node's free-GPU count, the capacity index and the shared-room
 * sets in step with its GPUs.
 */
final class Allocation {
    private final PoolState st;
    private final EngineConfig cfg;
    private final Outcome out;

    Allocation(final PoolState st, final EngineConfig cfg, final Outcome out) {
        this.st = st;
        this.cfg = cfg;
        this.out = out;
    }

    /** Places the job on the candidate; {@code note} is added to the PLACED reason (e.g. whom it preempted). */
    void allocate(final Job job, final Candidate c, final String note) {
        final JobSpec s = job.spec;
        final List<PlacementPart> placement = new ArrayList<>(c.slots.length);
        for (int i = 0; i < c.slots.length; i++) {
            cfg.failpoint().beforePart(job.id(), i);
            final NodeState n = st.node(c.slots[i]);
            final int oldFree = n.freeWhole;
            final boolean oldLink = n.linkOk();
            final List<Integer> gpus = new ArrayList<>(c.gpus[i].length);
            for (final int g : c.gpus[i]) {
                if (n.healthBits[g] != 0 || n.usedMilli[g] + c.milli > 1000 || (c.milli == 1000 && n.usedMilli[g] != 0)) {
                    throw new IllegalStateException("placer chose a GPU that cannot take the job: node "
                            + n.id() + " GPU " + g + " for " + job.id());
                }
                n.usedMilli[g] += c.milli;
                n.shared[g] = c.milli < 1000;
                if (c.milli < 1000) {
                    n.usedGpuMemMib[g] += s.gpuMemoryMib();
                }
                gpus.add(g);
            }
            n.cpuFree -= s.cpuMilliPerNode();
            n.memFree -= s.memoryMibPerNode();
            reindex(n, oldFree, oldLink);
            if (c.milli < 1000) {
                refreshSharedRoom(n);
            }
            n.jobs.add(job);
            placement.add(new PlacementPart(n.id(), gpus, c.milli, c.milli < 1000 ? s.gpuMemoryMib() : 0,
                    s.cpuMilliPerNode(), s.memoryMibPerNode()));
        }
        st.queue.remove(job);
        if (st.plans.size() > 0) {
            final Set<String> on = new HashSet<>();
            placement.forEach(a -> on.add(a.nodeId()));
            st.plans.placedOn(on, st.backfillCheckedAgainst);
        }
        job.placement = List.copyOf(placement);
        job.slots = c.slots.clone();
        job.state = JobState.PLACED;
        job.placedAtMs = st.nowMs;
        job.startedAtMs = 0;
        job.estimatedRuntimeMs = st.estimator.estimate(s, cfg.defaultRuntimeMs());
        job.currentReason = null;
        st.fairShare.acquire(s.tenant(), s.totalGpuMilli(), st.nowMs);
        if (s.preemptible()) {
            st.preemptibleHolding[s.priorityClass().ordinal()]++;
        }
        Reason why = placedReason(job, c);
        if (!note.isEmpty()) {
            why = Reason.of(ReasonCode.PLACED, why.message() + "; " + note);
        }
        final String id = out.decide(job.id(), DecisionKind.PLACED, job.placement, c.score, why, "", job).decisionId();
        job.placementId = id;
        out.instruct(job.placement, InstructionKind.ALLOCATE, job.id(), id, id);
    }

    private Reason placedReason(final Job job, final Candidate c) {
        final StringBuilder b = new StringBuilder(64).append("placed on ");
        final int shown = Math.min(c.slots.length, 4);
        for (int i = 0; i < shown; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(st.node(c.slots[i]).id());
        }
        if (c.slots.length > shown) {
            b.append(" and ").append(c.slots.length - shown).append(" more");
        }
        final NodeState first = st.node(c.slots[0]);
        b.append(" (").append(c.scope == GangScope.NODE ? "node" : c.scope.name().toLowerCase(Locale.ROOT))
                .append(' ').append(st.leaves.name(first.leafIndex)).append(") by ").append(cfg.policy().policyName())
                .append(", score ").append(DecimalText.of(c.score));
        if (job.spec.nodes() > 1 && st.leafCongested.get(first.leafIndex)) {
            b.append("; leaf uplinks congested");
        }
        return Reason.of(ReasonCode.PLACED, b.toString());
    }

    /** Frees what the job holds (no decision; the caller decides why). */
    void release(final Job job) {
        unaccount(job);
        for (final int slot : job.slots) {
            final NodeState n = st.node(slot);
            if (n != null) {
                n.jobs.remove(job);
            }
        }
        st.fairShare.release(job.spec.tenant(), job.spec.totalGpuMilli(), st.nowMs);
        if (job.spec.preemptible()) {
            st.preemptibleHolding[job.spec.priorityClass().ordinal()]--;
        }
        job.placement = List.of();
        job.slots = new int[0];
        if (!job.placementId.isEmpty()) {
            job.earlierPlacements.addLast(job.placementId);
            if (job.earlierPlacements.size() > Job.EARLIER_KEPT) {
                job.earlierPlacements.removeFirst();
            }
            job.placementId = "";
        }
    }

    /**
     * Takes the job's resources off its nodes but keeps its placement, so that {@link #reaccount}
     * can put them back exactly: how the queue pass asks "what if these jobs were gone".
     */
    void unaccount(final Job job) {
        onEachPart(job, Allocation::takeOff);
    }

    /** Puts back what {@link #unaccount} took off. */
    void reaccount(final Job job) {
        onEachPart(job, Allocation::putBack);
    }

    /** What one part of a placement does to its node's GPUs, CPU and memory. */
    private interface PartChange {
        void apply(NodeState n, PlacementPart a);
    }

    /** Applies {@code change} to each part whose node is still in the pool, then re-indexes the node. */
    private void onEachPart(final Job job, final PartChange change) {
        for (int i = 0; i < job.slots.length; i++) {
            final NodeState n = st.node(job.slots[i]);
            if (n == null) {
                continue; // node already removed
            }
            final int oldFree = n.freeWhole;
            final boolean oldLink = n.linkOk();
            change.apply(n, job.placement.get(i));
            reindex(n, oldFree, oldLink);
            refreshSharedRoom(n);
        }
    }

    private static void takeOff(final NodeState n, final PlacementPart a) {
        for (final int g : a.gpus()) {
            n.usedMilli[g] -= a.gpuMilli();
            if (a.gpuMilli() < 1000) {
                n.usedGpuMemMib[g] -= a.gpuMemoryMib();
            }
            if (n.usedMilli[g] < 0) {
                throw new IllegalStateException("released more than allocated on node " + n.id() + " GPU " + g);
            }
            if (n.usedMilli[g] == 0) {
                n.shared[g] = false;
            }
        }
        n.cpuFree += a.cpuMilli();
        n.memFree += a.memoryMib();
    }

    private static void putBack(final NodeState n, final PlacementPart a) {
        for (final int g : a.gpus()) {
            n.usedMilli[g] += a.gpuMilli();
            n.shared[g] = a.gpuMilli() < 1000;
            if (a.gpuMilli() < 1000) {
                n.usedGpuMemMib[g] += a.gpuMemoryMib();
            }
        }
        n.cpuFree -= a.cpuMilli();
        n.memFree -= a.memoryMib();
    }

    /**
     * After a change to the node's GPUs (use or health): a new version for its caches, its free-GPU
     * count again, and its place in the capacity index, which it held under {@code oldFree} and {@code oldLink}.
     */
    void reindex(final NodeState n, final int oldFree, final boolean oldLink) {
        n.changed();
        n.freeWhole = n.recountFreeWhole();
        st.index.update(n, oldFree, oldLink);
    }

    /** Whether the node has a shared, healthy GPU with room left, in its model's shared-room set. */
    void refreshSharedRoom(final NodeState n) {
        boolean room = false;
        for (int g = 0; g < n.gpuCount && !room; g++) {
            room = n.shared[g] && n.usedMilli[g] > 0 && n.usedMilli[g] < 1000 && n.healthBits[g] == 0;
        }
        st.sharedRoom(n.modelIndex).set(n.slot, room);
    }
}
