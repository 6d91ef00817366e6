package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/**
 * Finds where a job fits now: filter (health, model, capacity, CPU/memory, network, link state)
 * through the capacity index, then rank by the scoring policy. Reads the pool state, never changes it.
 * What is the same for every policy lives here: the models a job may use, the walk for a share of
 * one GPU, and a gang's topology scopes (leaf, spine, pool); the {@link PlacementPolicy} chosen from
 * the config's {@link ScoringPolicy} scores and orders at each point where the policies differ.
 */
final class PlacementSearch {
    private final PoolState st;
    private final NodeScan scan;
    private final PlacementPolicy policy;
    private final ShareBest shareBest = new ShareBest();

    PlacementSearch(final PoolState st, final EngineConfig cfg, final ModelStats stats) {
        this.st = st;
        this.scan = new NodeScan(st);
        this.policy = PlacementPolicy.of(st, cfg, stats, scan);
    }


    /** Model indices the job may use, in model order (never null; may be empty). */
    int[] models(final JobSpec job) {
        if (job.allowedModels().isEmpty()) {
            final int[] all = new int[st.models.size()];
            int n = 0;
            for (int m = 0; m < all.length; m++) {
                if (job.gpusPerNode() == 0 || !PoolState.CPU_ONLY.equals(st.models.name(m))) {
                    all[n++] = m;
                }
            }
            return n == all.length ? all : Arrays.copyOf(all, n);
        }
        final int[] out = new int[job.allowedModels().size()];
        int n = 0;
        for (final String name : job.allowedModels()) {
            final int m = st.models.find(name);
            if (m >= 0) {
                out[n++] = m;
            }
        }
        final int[] r = Arrays.copyOf(out, n);
        Arrays.sort(r);
        return r;
    }

    Candidate place(final JobSpec job) {
        final int[] models = models(job);
        if (models.length == 0) {
            return null;
        }
        if (job.isShare()) {
            return share(job, models);
        }
        if (job.nodes() == 1) {
            return policy.single(job, models, job.gpusPerNode());
        }
        for (final GangScope scope : scopes(job)) {
            final Candidate c = gang(job, models, scope);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    static List<GangScope> scopes(final JobSpec job) {
        final GangScope first = job.topology() == GangScope.NODE ? GangScope.LEAF : job.topology();
        if (job.topologyRequired()) {
            return List.of(first);
        }
        final List<GangScope> s = new ArrayList<>(3);
        for (final GangScope t : List.of(GangScope.LEAF, GangScope.SPINE, GangScope.POOL)) {
            if (t.compareTo(first) >= 0) {
                s.add(t);
            }
        }
        return s;
    }

    // ---- a share of one GPU ----

    /** The best (node, GPU) for a share seen so far in one walk; reused, so that a walk allocates nothing. */
    private static final class ShareBest {
        NodeState node;
        int gpu;
        int model;
        long key;
        long tie;

        void reset() {
            node = null;
            gpu = -1;
            model = -1;
            key = Long.MAX_VALUE;
            tie = Long.MAX_VALUE;
        }
    }

    /** Shared GPUs already in use first, then whole free GPUs, bucket by bucket. */
    private Candidate share(final JobSpec job, final int[] models) {
        final int milli = job.gpuMilli();
        final ShareBest best = shareBest;
        best.reset();
        for (final int m : models) {
            final BitSet room = st.sharedRoom(m);
            for (int s = room.nextSetBit(0); s >= 0; s = room.nextSetBit(s + 1)) {
                final NodeState n = st.node(s);
                if (!NodeScan.fits(n, job, false)) {
                    continue;
                }
                for (int g = 0; g < n.gpuCount; g++) {
                    if (n.shared[g] && n.usedMilli[g] > 0 && shareFits(n, g, job)) {
                        offerShare(job, m, n, g, 1000 - n.usedMilli[g]);
                    }
                }
            }
            for (final CapacityIndex.Group grp : st.index.groupsOf(m)) {
                for (int b = 1; b <= grp.maxGpus; b++) {
                    if (grp.allCount[b] == 0) {
                        continue;
                    }
                    if (policy.shareOutOfReach(b, milli, best.key)) {
                        break;
                    }
                    for (NodeState n = scan.first(grp, b, b, false, job); n != null; n = scan.next()) {
                        final int g = firstFreeWholeFor(n, job);
                        if (g < 0) {
                            continue;
                        }
                        offerShare(job, m, n, g, 1000);
                        if (policy.oneSharePerBucket()) {
                            break;
                        }
                    }
                }
            }
        }
        return best.node == null ? null : new Candidate(best.model, new int[] {best.node.slot}, new int[][] {{best.gpu}},
                milli, best.key, GangScope.NODE);
    }

    private void offerShare(final JobSpec job, final int m, final NodeState n, final int g, final int gpuFree) {
        final long key = policy.shareKey(n, g, job);
        final long tie = policy.shareTie(job, n, gpuFree, g);
        final ShareBest best = shareBest;
        if (key < best.key || (key == best.key && tie < best.tie)) {
            best.node = n;
            best.gpu = g;
            best.model = m;
            best.key = key;
            best.tie = tie;
        }
    }

    private boolean shareFits(final NodeState n, final int g, final JobSpec job) {
        if (n.healthBits[g] != 0 || 1000 - n.usedMilli[g] < job.gpuMilli()) {
            return false;
        }
        final int mem = n.spec.gpus().get(g).memoryMib();
        return job.gpuMemoryMib() <= 0 || mem <= 0 || n.usedGpuMemMib[g] + job.gpuMemoryMib() <= mem;
    }

    private int firstFreeWholeFor(final NodeState n, final JobSpec job) {
        for (int g = 0; g < n.gpuCount; g++) {
            if (n.usedMilli[g] == 0 && shareFits(n, g, job)) {
                return g;
            }
        }
        return -1;
    }

    // ---- gangs of nodes ----

    private Candidate gang(final JobSpec job, final int[] models, final GangScope scope) {
        Candidate best = null;
        for (final int m : models) {
            final Candidate c = switch (scope) {
                case NODE, LEAF -> gangOnLeaf(job, m);
                case SPINE -> gangOnSpine(job, m);
                case POOL -> policy.gang(job, m, byEligibleDesc(st.index.groupsOf(m), job.gpusPerNode()), GangScope.POOL);
            };
            if (c != null && (best == null || c.score < best.score)) {
                best = c;
            }
        }
        return best;
    }

    private Candidate gangOnLeaf(final JobSpec job, final int m) {
        final int k = job.gpusPerNode();
        final List<CapacityIndex.Group> groups = st.index.groupsOf(m);
        final int[] eligible = new int[groups.size()];
        int best = -1;
        for (int i = 0; i < eligible.length; i++) {
            eligible[i] = groups.get(i).countAtLeast(k, true);
            if (eligible[i] >= job.nodes() && (best < 0 || leafBefore(groups, eligible, i, best))) {
                best = i;
            }
        }
        if (best < 0) {
            return null;
        }
        // the best leaf nearly always holds the gang; CPU, memory or network can still refuse it
        final Candidate first = policy.gang(job, m, List.of(groups.get(best)), GangScope.LEAF);
        if (first != null) {
            return first;
        }
        final List<Integer> order = new ArrayList<>();
        for (int i = 0; i < eligible.length; i++) {
            if (eligible[i] >= job.nodes() && i != best) {
                order.add(i);
            }
        }
        order.sort((a, b) -> leafBefore(groups, eligible, a, b) ? -1 : leafBefore(groups, eligible, b, a) ? 1 : 0);
        for (final int i : order) {
            final Candidate c = policy.gang(job, m, List.of(groups.get(i)), GangScope.LEAF);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /**
     * Leaf order for gangs. A policy that does not pack (first-fit): fabric order. Otherwise pack:
     * uncongested uplinks first, then the leaf with the fewest fitting nodes, then fabric order.
     */
    private boolean leafBefore(final List<CapacityIndex.Group> groups, final int[] eligible, final int a, final int b) {
        if (policy.packsGangs()) {
            final boolean ca = st.leafCongested.get(groups.get(a).leaf);
            final boolean cb = st.leafCongested.get(groups.get(b).leaf);
            if (ca != cb) {
                return !ca;
            }
            if (eligible[a] != eligible[b]) {
                return eligible[a] < eligible[b];
            }
        }
        return groups.get(a).leaf < groups.get(b).leaf;
    }

    private Candidate gangOnSpine(final JobSpec job, final int m) {
        final int k = job.gpusPerNode();
        final int spines = st.spines.size();
        final int[] eligible = new int[spines];
        for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
            eligible[st.spineOfLeaf.get(g.leaf)] += g.countAtLeast(k, true);
        }
        final List<Integer> order = new ArrayList<>();
        for (int s = 0; s < spines; s++) {
            if (eligible[s] >= job.nodes()) {
                order.add(s);
            }
        }
        if (policy.packsGangs()) {
            order.sort(Comparator.<Integer>comparingInt(s -> eligible[s]).thenComparingInt(s -> s));
        }
        for (final int s : order) {
            final List<CapacityIndex.Group> gs = new ArrayList<>();
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                if (st.spineOfLeaf.get(g.leaf) == s) {
                    gs.add(g);
                }
            }
            final Candidate c = policy.gang(job, m, byEligibleDesc(gs, k), GangScope.SPINE);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /** Fewest leaves touched: the leaves with most fitting nodes first. */
    private static List<CapacityIndex.Group> byEligibleDesc(final List<CapacityIndex.Group> gs, final int k) {
        final List<CapacityIndex.Group> out = new ArrayList<>(gs);
        out.sort(Comparator.<CapacityIndex.Group>comparingInt(g -> -g.countAtLeast(k, true)).thenComparingInt(g -> g.leaf));
        return out;
    }
}
