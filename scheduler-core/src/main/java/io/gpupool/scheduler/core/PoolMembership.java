package io.gpupool.scheduler.core;

import java.util.ArrayList;

/**
 * The pool's nodes as the inventory describes them: a node appears, changes its description, or
 * leaves (its jobs are evicted). A node whose GPUs stay the same keeps its allocations and health.
 */
final class PoolMembership {
    private final PoolState st;
    private final EngineConfig cfg;
    private final ModelStats stats;
    private final JobLifecycle jobs;

    PoolMembership(final PoolState st, final EngineConfig cfg, final ModelStats stats, final JobLifecycle jobs) {
        this.st = st;
        this.cfg = cfg;
        this.stats = stats;
        this.jobs = jobs;
    }

    /** A node appeared or its description changed; always asks for a queue pass. */
    boolean upsert(final NodeSpec spec) {
        st.impairmentVersion++;
        final NodeState old = st.nodesById.get(spec.nodeId());
        final String model = spec.gpuModel() == null ? PoolState.CPU_ONLY : spec.gpuModel();
        if (old != null && old.gpuCount == spec.gpus().size() && st.models.name(old.modelIndex).equals(model)) {
            // same GPUs: keep allocations and health, take the new description (leaf, CPU, HCAs)
            final int leaf = st.leafIndex(spec.leaf(), spec.spine());
            final long cpuUsed = old.spec.cpuMilli() - old.cpuFree;
            final long memUsed = old.spec.memoryMib() - old.memFree;
            st.index.remove(old);
            old.describe(spec);
            final int oldLeaf = old.leafIndex;
            final boolean counted = old.uplinkCounted;
            st.uncountUplink(old);
            old.leafIndex = leaf;
            st.countUplink(old);
            if (oldLeaf != leaf && counted) {
                st.judgeLeaf(oldLeaf, cfg.leafCongestedPct(), true);
                st.judgeLeaf(leaf, cfg.leafCongestedPct(), false);
            }
            old.spineIndex = st.spineOfLeaf.get(leaf);
            old.cpuFree = spec.cpuMilli() - cpuUsed;
            old.changed();
            old.memFree = spec.memoryMib() - memUsed;
            st.index.add(old);
            stats.invalidate();
            return true;
        }
        if (old != null) {
            remove(spec.nodeId());
        }
        final int leaf = st.leafIndex(spec.leaf(), spec.spine());
        final NodeState n = new NodeState(st.slots.size(), spec, st.models.intern(model), leaf,
                st.spineOfLeaf.get(leaf), st.nowMs, st.nodeChanges);
        st.slots.add(n);
        st.nodesById.put(spec.nodeId(), n);
        st.index.add(n);
        stats.invalidate();
        return true;
    }

    /** A node left the pool: its jobs are evicted; true when it was in the pool. */
    boolean remove(final String nodeId) {
        st.impairmentVersion++;
        final NodeState n = st.nodesById.get(nodeId);
        if (n == null) {
            return false;
        }
        for (final Job j : new ArrayList<>(n.jobs)) {
            jobs.evict(j, Reason.of(ReasonCode.NODE_REMOVED, "node " + nodeId + " left the pool"), "", true);
        }
        st.index.remove(n);
        st.sharedRoom(n.modelIndex).clear(n.slot);
        if (n.uplinkCounted) {
            st.uncountUplink(n);
            st.judgeLeaf(n.leafIndex, cfg.leafCongestedPct(), true);
        }
        st.slots.set(n.slot, null);
        st.nodesById.remove(nodeId);
        stats.invalidate();
        return true;
    }
}
