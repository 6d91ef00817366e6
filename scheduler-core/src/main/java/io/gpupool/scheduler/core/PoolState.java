package io.gpupool.scheduler.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one pool's engine remembers. Plain data plus the capacity index; the rules live in
 * the engine and its helpers.
 */
final class PoolState {
    /** The model name given to nodes without GPUs. */
    static final String CPU_ONLY = "";

    final NameTable models = new NameTable();
    final NameTable leaves = new NameTable();
    final NameTable spines = new NameTable();
    /** leaf index -> spine index (the last inventory that named the leaf wins). */
    final List<Integer> spineOfLeaf = new ArrayList<>();
    final List<Boolean> leafCongested = new ArrayList<>();
    /** Per leaf: {sum of its nodes' uplink percents, nodes with a figure}. Derived from the nodes. */
    final List<long[]> leafUplinks = new ArrayList<>();

    /** Node slots in the order nodes first appeared; removed nodes leave a null. */
    final List<NodeState> slots = new ArrayList<>();
    final Map<String, NodeState> nodesById = new HashMap<>();
    final CapacityIndex index = new CapacityIndex(slots::get);
    /** Which nodes changed, in order (derived, not stored): keeps {@link ReadyOrder}s current. */
    final NodeChanges nodeChanges = new NodeChanges();
    /** model -> slots of nodes having a shared, healthy GPU with room left. */
    final List<BitSet> sharedRoom = new ArrayList<>();

    /** Jobs that are queued or hold resources, in submission order. */
    final LinkedHashMap<String, Job> activeJobs = new LinkedHashMap<>();
    /** Finished jobs kept for queries, oldest first. */
    final LinkedHashMap<String, Job> finishedJobs = new LinkedHashMap<>();
    /** Waiting jobs, in submission order and, per tenant, in policy order. */
    final WaitingQueue queue = new WaitingQueue();
    /** Queue-pass rounds so far (not persisted: only compared within one round). */
    long rounds;

    /** The reservation the last queue pass made (explanations of waiting jobs refer to it). */
    Reservation reservation;

    /** Bumped whenever a GPU's health, a node's links or the inventory change (keys derived caches; not stored). */
    int impairmentVersion;

    /** Reservation plans kept between passes (see {@link StandingPlans}). */
    final StandingPlans plans = new StandingPlans();
    /**
     * Set only while the queue pass places a job it checked against the plan of this shape (the
     * backfill rule): that placement leaves the plan standing. Null between inputs.
     */
    Object backfillCheckedAgainst;
    /**
     * Stream times of the consolidation moves (one per job moved) within {@code consolidation-window-ms},
     * oldest first; kept only when a window budget is set.
     */
    final ArrayDeque<Long> consolidationMoves = new ArrayDeque<>();

    /** Preemptible jobs holding resources, per priority class: lets the pass skip victim searches. */
    final int[] preemptibleHolding = new int[PriorityClass.values().length];

    long decisionSeq;
    long submitSeq;
    long nowMs;

    final JobSizeMix sizeMix;
    final FairShare fairShare;
    final RuntimeEstimator estimator = new RuntimeEstimator();

    PoolState(final EngineConfig config) {
        this.sizeMix = new JobSizeMix(config.fgdWindow(), config.fgdPopularityPct());
        this.fairShare = new FairShare(config.fairShareHalfLifeMs());
    }

    int leafIndex(final String leaf, final String spine) {
        final int l = leaves.intern(leaf);
        final int s = spines.intern(spine);
        while (spineOfLeaf.size() <= l) {
            spineOfLeaf.add(0);
            leafCongested.add(Boolean.FALSE);
        }
        growLeafUplinks();
        spineOfLeaf.set(l, s);
        return l;
    }

    private void growLeafUplinks() {
        while (leafUplinks.size() < spineOfLeaf.size()) {
            leafUplinks.add(new long[2]);
        }
    }

    /**
     * Takes node {@code n}'s uplink figure out of its leaf's sum (before the figure, the node's leaf
     * or its staleness changes); nothing when it was not in.
     */
    void uncountUplink(final NodeState n) {
        if (n.uplinkCounted) {
            final long[] u = leafUplinks.get(n.leafIndex);
            u[0] -= n.uplinkPct;
            u[1]--;
            n.uplinkCounted = false;
        }
    }

    /**
     * Puts node {@code n}'s uplink figure into its leaf's sum when it counts: known, and the node's
     * telemetry not stale (a node that stopped reporting says nothing about the uplink now).
     */
    void countUplink(final NodeState n) {
        if (!n.uplinkCounted && n.uplinkPct >= 0 && !n.telemetryStale()) {
            growLeafUplinks();
            final long[] u = leafUplinks.get(n.leafIndex);
            u[0] += n.uplinkPct;
            u[1]++;
            n.uplinkCounted = true;
        }
    }

    /** Whether some node of the leaf has a figure in its sum. */
    boolean leafHasUplinks(final int leaf) {
        return leaf < leafUplinks.size() && leafUplinks.get(leaf)[1] > 0;
    }

    /**
     * Re-judges leaf {@code leaf} from its nodes' uplinks: congested when their mean is at least
     * {@code congestedPct}. A leaf none of whose nodes has a figure keeps what it was told last (a
     * journal of leaf-level congestion facts, as older schedulers wrote, sets it directly), unless
     * its last figure just went ({@code hadFigures}).
     */
    void judgeLeaf(final int leaf, final int congestedPct, final boolean hadFigures) {
        growLeafUplinks();
        final long[] u = leafUplinks.get(leaf);
        if (u[1] > 0) {
            leafCongested.set(leaf, u[0] >= (long) congestedPct * u[1]);
        } else if (hadFigures) {
            leafCongested.set(leaf, Boolean.FALSE);
        }
    }

    /** The mean uplink utilisation of a leaf's nodes with a figure, percent; -1 when none has one. */
    double leafUplinkPct(final int leaf) {
        if (leaf >= leafUplinks.size() || leafUplinks.get(leaf)[1] == 0) {
            return -1;
        }
        final long[] u = leafUplinks.get(leaf);
        return (double) u[0] / u[1];
    }

    /** The leaf sums from the nodes (after a restore: derived, not stored). */
    void recountLeafUplinks() {
        leafUplinks.clear();
        growLeafUplinks();
        for (final NodeState n : slots) {
            if (n != null) {
                n.uplinkCounted = false;
                countUplink(n);
            }
        }
    }

    BitSet sharedRoom(final int model) {
        while (sharedRoom.size() <= model) {
            sharedRoom.add(new BitSet());
        }
        return sharedRoom.get(model);
    }

    Job job(final String jobId) {
        final Job j = activeJobs.get(jobId);
        return j != null ? j : finishedJobs.get(jobId);
    }

    NodeState node(final int slot) {
        return slots.get(slot);
    }
}
