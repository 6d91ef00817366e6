package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/**
 * Finds where a job fits now: filter (health, model, capacity, CPU/memory, network, link state)
 * through the capacity index, then rank by the scoring policy. Reads the pool state, never changes it.
 */
final class PlacementSearch {
    private final PoolState st;
    private final EngineConfig cfg;
    private final ModelStats stats;
    private final int[] freeBefore = new int[NodeSpec.MAX_GPUS_PER_NODE];
    private final int[] freeAfter = new int[NodeSpec.MAX_GPUS_PER_NODE];

    PlacementSearch(final PoolState st, final EngineConfig cfg, final ModelStats stats) {
        this.st = st;
        this.cfg = cfg;
        this.stats = stats;
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
            return single(job, models, job.gpusPerNode());
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

    boolean fits(final NodeState n, final JobSpec job, final boolean multiNode) {
        if (n.cpuFree < job.cpuMilliPerNode() || n.memFree < job.memoryMibPerNode()) {
            return false;
        }
        return job.network().satisfiedBy(n.infiniband, n.roce) && (!multiNode || n.linkOk());
    }

    // ---- single node, whole GPUs (or CPU only) ----

    private Candidate single(final JobSpec job, final int[] models, final int k) {
        return switch (cfg.policy()) {
            case FIRST_FIT -> singleFirstFit(job, models, k);
            case BEST_FIT -> cfg.bestFitCpuWeight() > 0 ? singleWeightedBestFit(job, models, k) : singleBestFit(job, models, k);
            case FGD -> singleFgd(job, models, k);
            case RANDOM -> singleRandom(job, models, k);
        };
    }

    // ---- seeded draws: a hash of seed, job and node, so that no random state needs a snapshot ----

    /** The job's seeded draw for node {@code slot}: uniform over longs, the same on every replay. */
    long draw(final JobSpec job, final int slot) {
        return mix(mix(cfg.seed() ^ mix(job.jobId().hashCode())) + slot);
    }

    /** Tie-breaker between equally scored nodes: pool order, or a seeded draw with random-ties. */
    private long tie(final JobSpec job, final int slot) {
        return cfg.randomTies() ? draw(job, slot) : slot;
    }

    /** SplitMix64's finaliser. */
    static long mix(final long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Random: the fitting node with the smallest draw, i.e. one drawn uniformly among all that fit. */
    private Candidate singleRandom(final JobSpec job, final int[] models, final int k) {
        NodeState best = null;
        int bestModel = -1;
        long bestDraw = Long.MAX_VALUE;
        for (final int m : models) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                for (int b = k; b <= g.maxGpus; b++) {
                    if (g.allCount[b] == 0) {
                        continue;
                    }
                    final long[] bits = g.all[b];
                    for (int p = CapacityIndex.next(bits, 0); p >= 0; p = CapacityIndex.next(bits, p + 1)) {
                        final NodeState n = st.node(g.members[p]);
                        if (!fits(n, job, false)) {
                            continue;
                        }
                        final long d = draw(job, n.slot);
                        if (best == null || Long.compareUnsigned(d, bestDraw) < 0) {
                            best = n;
                            bestModel = m;
                            bestDraw = d;
                        }
                    }
                }
            }
        }
        return best == null ? null : wholeOn(bestModel, best, k, 0, GangScope.NODE);
    }

    private Candidate singleFirstFit(final JobSpec job, final int[] models, final int k) {
        for (final int m : models) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                // lowest member position over the buckets that hold k or more free GPUs
                int from = 0;
                while (true) {
                    int p = -1;
                    for (int b = k; b <= g.maxGpus; b++) {
                        if (g.allCount[b] > 0) {
                            final int q = CapacityIndex.next(g.all[b], from);
                            if (q >= 0 && (p < 0 || q < p)) {
                                p = q;
                            }
                        }
                    }
                    if (p < 0) {
                        break;
                    }
                    final NodeState n = st.node(g.members[p]);
                    if (fits(n, job, false)) {
                        return wholeOn(m, n, k, 0, GangScope.NODE);
                    }
                    from = p + 1;
                }
            }
        }
        return null;
    }

    private Candidate singleBestFit(final JobSpec job, final int[] models, final int k) {
        for (int b = k; b <= NodeSpec.MAX_GPUS_PER_NODE; b++) {
            for (final int m : models) {
                if (st.index.modelCount(m, b) == 0) {
                    continue;
                }
                for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                    if (g.allCount[b] == 0) {
                        continue;
                    }
                    final long[] bits = g.all[b];
                    for (int p = CapacityIndex.next(bits, 0); p >= 0; p = CapacityIndex.next(bits, p + 1)) {
                        final NodeState n = st.node(g.members[p]);
                        if (fits(n, job, false)) {
                            return wholeOn(m, n, k, b - k, GangScope.NODE);
                        }
                    }
                }
            }
        }
        return null;
    }

    /**
     * Best-fit over CPU and GPU: least weighted capacity left after placement. Nodes in bucket b keep at
     * least (b - k) free GPUs, so buckets are visited in order and the walk stops once no node in
     * the next bucket can beat the best score.
     */
    private Candidate singleWeightedBestFit(final JobSpec job, final int[] models, final int k) {
        final ModelStats s = stats.current(st);
        NodeState best = null;
        int bestModel = -1;
        long bestScore = Long.MAX_VALUE;
        long bestTie = Long.MAX_VALUE;
        for (int b = k; b <= NodeSpec.MAX_GPUS_PER_NODE; b++) {
            if (bestFitKey(gpuTerm((b - k) * 1000L, s)) > bestScore) {
                break;
            }
            for (final int m : models) {
                if (st.index.modelCount(m, b) == 0) {
                    continue;
                }
                for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                    final long[] bits = g.all[b];
                    for (int p = CapacityIndex.next(bits, 0); p >= 0; p = CapacityIndex.next(bits, p + 1)) {
                        final NodeState n = st.node(g.members[p]);
                        if (!fits(n, job, false)) {
                            continue;
                        }
                        final long score = bestFitKey(weightedLeft(n, job.cpuMilliPerNode(), n.freeMilliHealthy() - k * 1000L, s));
                        final long t = tie(job, n.slot);
                        if (score < bestScore || (score == bestScore && t < bestTie)) {
                            best = n;
                            bestModel = m;
                            bestScore = score;
                            bestTie = t;
                        }
                    }
                }
            }
        }
        return best == null ? null : wholeOn(bestModel, best, k, bestScore, GangScope.NODE);
    }

    /**
     * The weighted best-fit score as FGD's BestFit plugin has it: the share of the largest node left
     * free after placement, as an integer score 0..100 (higher better); returned negated, lower better.
     */
    static long bestFitKey(final double left) {
        return -(long) ((1.0 - left) * 100);
    }

    private double gpuTerm(final long milliLeft, final ModelStats s) {
        return (1 - cfg.bestFitCpuWeight()) * milliLeft / Math.max(1.0, s.maxGpuMilliAll);
    }

    private double weightedLeft(final NodeState n, final long cpu, final long milliLeft, final ModelStats s) {
        return cfg.bestFitCpuWeight() * (n.cpuFree - cpu) / Math.max(1.0, s.maxCpuAll) + gpuTerm(milliLeft, s);
    }

    private Candidate singleFgd(final JobSpec job, final int[] models, final int k) {
        NodeState best = null;
        int bestModel = -1;
        long bestDelta = Long.MAX_VALUE;
        int bestLeft = Integer.MAX_VALUE;
        long bestTie = Long.MAX_VALUE;
        int[] bestGpus = null;
        for (final int m : models) {
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                for (int b = k; b <= g.maxGpus; b++) {
                    if (g.allCount[b] == 0) {
                        continue;
                    }
                    final long[] bits = g.all[b];
                    for (int p = CapacityIndex.next(bits, 0); p >= 0; p = CapacityIndex.next(bits, p + 1)) {
                        final NodeState n = st.node(g.members[p]);
                        if (!fits(n, job, false)) {
                            continue;
                        }
                        final int[] gpus = chooseWhole(n, k);
                        final long d = fgdKey(deltaWhole(n, gpus, job.cpuMilliPerNode()), k * 1000L);
                        final long t = tie(job, n.slot);
                        final int left = b - k; // equal growth: the node left with fewer free GPUs keeps the others whole
                        if (d < bestDelta || (d == bestDelta && (left < bestLeft
                                || (left == bestLeft && (n.cpuFree < best.cpuFree
                                || (n.cpuFree == best.cpuFree && t < bestTie)))))) {
                            best = n;
                            bestModel = m;
                            bestDelta = d;
                            bestLeft = left;
                            bestGpus = gpus;
                            bestTie = t;
                        }
                    }
                }
            }
        }
        return best == null ? null
                : new Candidate(bestModel, new int[] {best.slot}, new int[][] {bestGpus}, 1000, bestDelta, GangScope.NODE);
    }

    private Candidate wholeOn(final int m, final NodeState n, final int k, final double score, final GangScope s) {
        return new Candidate(m, new int[] {n.slot}, new int[][] {chooseWhole(n, k)}, 1000, score, s);
    }

    // ---- a share of one GPU ----

    private Candidate share(final JobSpec job, final int[] models) {
        final int milli = job.gpuMilli();
        NodeState best = null;
        int bestGpu = -1;
        int bestModel = -1;
        long bestKey = Long.MAX_VALUE;
        long bestTie = Long.MAX_VALUE;
        for (final int m : models) {
            final BitSet room = st.sharedRoom(m);
            for (int s = room.nextSetBit(0); s >= 0; s = room.nextSetBit(s + 1)) {
                final NodeState n = st.node(s);
                if (!fits(n, job, false)) {
                    continue;
                }
                for (int g = 0; g < n.gpuCount; g++) {
                    if (n.shared[g] && n.usedMilli[g] > 0 && shareFits(n, g, job)) {
                        final long key = shareKey(n, g, job);
                        final long tie = shareTie(job, n, 1000 - n.usedMilli[g], g);
                        if (key < bestKey || (key == bestKey && tie < bestTie)) {
                            best = n;
                            bestGpu = g;
                            bestModel = m;
                            bestKey = key;
                            bestTie = tie;
                        }
                    }
                }
            }
            for (final CapacityIndex.Group grp : st.index.groupsOf(m)) {
                for (int b = 1; b <= grp.maxGpus; b++) {
                    if (grp.allCount[b] == 0) {
                        continue;
                    }
                    if (cfg.policy() == ScoringPolicy.BEST_FIT && cfg.bestFitCpuWeight() == 0 && (long) b * 1000 - milli > bestKey) {
                        break;
                    }
                    final long[] bits = grp.all[b];
                    for (int p = CapacityIndex.next(bits, 0); p >= 0; p = CapacityIndex.next(bits, p + 1)) {
                        final NodeState n = st.node(grp.members[p]);
                        if (!fits(n, job, false)) {
                            continue;
                        }
                        final int g = firstFreeWholeFor(n, job);
                        if (g < 0) {
                            continue;
                        }
                        final long key = shareKey(n, g, job);
                        final long tie = shareTie(job, n, 1000, g);
                        if (key < bestKey || (key == bestKey && tie < bestTie)) {
                            best = n;
                            bestGpu = g;
                            bestModel = m;
                            bestKey = key;
                            bestTie = tie;
                        }
                        if (cfg.policy() == ScoringPolicy.FIRST_FIT) {
                            break;
                        }
                    }
                }
            }
        }
        return best == null ? null : new Candidate(bestModel, new int[] {best.slot}, new int[][] {{bestGpu}},
                milli, bestKey, GangScope.NODE);
    }

    /**
     * Between equally scored (node, GPU) choices for a share: the fuller GPU (as FGD's BestFit picks
     * the GPU), then pool order, or with random-ties a seeded draw. The random policy draws the GPU too.
     */
    private long shareTie(final JobSpec job, final NodeState n, final int gpuFree, final int g) {
        if (cfg.policy() == ScoringPolicy.RANDOM) {
            return draw(job, n.slot * NodeSpec.MAX_GPUS_PER_NODE + g) >>> 1;
        }
        if (cfg.randomTies()) {
            return ((long) gpuFree << 52) | (draw(job, n.slot) >>> 12); // the fuller GPU, then a draw
        }
        return ((long) gpuFree << 32) | n.slot;
    }

    /** Lower is better: first-fit = slot; best-fit = node free milli after; fgd = fragmentation growth. */
    private long shareKey(final NodeState n, final int g, final JobSpec job) {
        return switch (cfg.policy()) {
            case FIRST_FIT -> n.slot;
            case BEST_FIT -> cfg.bestFitCpuWeight() > 0
                    ? bestFitKey(weightedLeft(n, job.cpuMilliPerNode(), n.freeMilliHealthy() - job.gpuMilli(), stats.current(st)))
                    : n.freeMilliHealthy() - job.gpuMilli();
            case RANDOM -> draw(job, n.slot) >>> 1;
            case FGD -> {
                Fragmentation.freeOf(n, freeBefore);
                System.arraycopy(freeBefore, 0, freeAfter, 0, n.gpuCount);
                freeAfter[g] -= job.gpuMilli();
                yield fgdKey(delta(n, job.cpuMilliPerNode()), job.gpuMilli());
            }
        };
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
                case POOL -> pick(job, m, byEligibleDesc(st.index.groupsOf(m), job.gpusPerNode()), GangScope.POOL);
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
        final Candidate first = pick(job, m, List.of(groups.get(best)), GangScope.LEAF);
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
            final Candidate c = pick(job, m, List.of(groups.get(i)), GangScope.LEAF);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /**
     * Leaf order for gangs. First-fit: fabric order. Otherwise pack: uncongested uplinks first, then
     * the leaf with the fewest fitting nodes, then fabric order.
     */
    private boolean leafBefore(final List<CapacityIndex.Group> groups, final int[] eligible, final int a, final int b) {
        if (cfg.policy() != ScoringPolicy.FIRST_FIT) {
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
        if (cfg.policy() != ScoringPolicy.FIRST_FIT) {
            order.sort(Comparator.<Integer>comparingInt(s -> eligible[s]).thenComparingInt(s -> s));
        }
        for (final int s : order) {
            final List<CapacityIndex.Group> gs = new ArrayList<>();
            for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                if (st.spineOfLeaf.get(g.leaf) == s) {
                    gs.add(g);
                }
            }
            final Candidate c = pick(job, m, byEligibleDesc(gs, k), GangScope.SPINE);
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

    /** Picks the gang's nodes from the given leaves (in that order); null when they cannot hold it. */
    private Candidate pick(final JobSpec job, final int m, final List<CapacityIndex.Group> groups,
                           final GangScope scope) {
        final int k = job.gpusPerNode();
        final int want = job.nodes();
        final int[] slots = new int[want];
        int got = 0;
        double score = 0;
        if (cfg.policy() == ScoringPolicy.FGD) {
            final List<long[]> all = new ArrayList<>();
            for (final CapacityIndex.Group g : groups) {
                for (int b = k; b <= g.maxGpus; b++) {
                    final long[] bits = g.gang[b];
                    for (int p = CapacityIndex.next(bits, 0); p >= 0; p = CapacityIndex.next(bits, p + 1)) {
                        final NodeState n = st.node(g.members[p]);
                        if (fits(n, job, true)) {
                            all.add(new long[] {deltaWhole(n, chooseWhole(n, k), job.cpuMilliPerNode()), b, n.slot});
                        }
                    }
                }
            }
            if (all.size() < want) {
                return null;
            }
            all.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : a[1] != b[1] ? Long.compare(a[1], b[1])
                    : Long.compare(a[2], b[2]));
            for (int i = 0; i < want; i++) {
                slots[i] = (int) all.get(i)[2];
                score += all.get(i)[0];
            }
            got = want;
        } else {
            outer:
            for (final CapacityIndex.Group g : groups) {
                if (cfg.policy() == ScoringPolicy.FIRST_FIT) {
                    for (int p = 0; p < g.members.length; p++) {
                        final NodeState n = st.node(g.members[p]);
                        if (n.freeWhole >= k && fits(n, job, true)) {
                            slots[got++] = n.slot;
                            if (got == want) {
                                break outer;
                            }
                        }
                    }
                } else {
                    for (int b = k; b <= g.maxGpus; b++) {
                        if (g.gangCount[b] == 0) {
                            continue;
                        }
                        final long[] bits = g.gang[b];
                        for (int p = CapacityIndex.next(bits, 0); p >= 0; p = CapacityIndex.next(bits, p + 1)) {
                            final NodeState n = st.node(g.members[p]);
                            if (fits(n, job, true)) {
                                slots[got++] = n.slot;
                                score += b - k;
                                if (got == want) {
                                    break outer;
                                }
                            }
                        }
                    }
                }
            }
        }
        if (got < want) {
            return null;
        }
        final int[][] gpus = new int[want][];
        for (int i = 0; i < want; i++) {
            gpus[i] = chooseWhole(st.node(slots[i]), k);
        }
        return new Candidate(m, slots, gpus, 1000, score, scope);
    }

    // ---- GPUs inside a node ----

    /**
     * {@code k} free healthy GPUs, preferring one NVLink group (else one PCIe switch): the group
     * with the fewest free GPUs that still holds all k; otherwise the fullest groups first.
     */
    static int[] chooseWhole(final NodeState n, final int k) {
        final int[] out = new int[k];
        if (k == 0) {
            return out;
        }
        int got = 0;
        if (n.oneAffinityGroup) {
            for (int g = 0; g < n.gpuCount && got < k; g++) {
                if (n.usedMilli[g] == 0 && n.healthBits[g] == 0) {
                    out[got++] = g;
                }
            }
            return out;
        }
        int bestGroup = Integer.MIN_VALUE;
        int bestFree = Integer.MAX_VALUE;
        for (int g = 0; g < n.gpuCount; g++) {
            final int grp = n.affinity[g];
            final int free = freeInGroup(n, grp);
            if (free >= k && (free < bestFree || (free == bestFree && grp < bestGroup))) {
                bestFree = free;
                bestGroup = grp;
            }
        }
        if (bestGroup != Integer.MIN_VALUE) {
            for (int g = 0; g < n.gpuCount && got < k; g++) {
                if (n.usedMilli[g] == 0 && n.healthBits[g] == 0 && n.affinity[g] == bestGroup) {
                    out[got++] = g;
                }
            }
            return out;
        }
        // no group holds all k: take from the groups with most free GPUs first
        final boolean[] taken = new boolean[n.gpuCount];
        while (got < k) {
            int pickGroup = 0;
            int pickFree = -1;
            for (int g = 0; g < n.gpuCount; g++) {
                if (n.usedMilli[g] == 0 && n.healthBits[g] == 0 && !taken[g]) {
                    int free = 0;
                    for (int h = 0; h < n.gpuCount; h++) {
                        if (n.usedMilli[h] == 0 && n.healthBits[h] == 0 && !taken[h] && n.affinity[h] == n.affinity[g]) {
                            free++;
                        }
                    }
                    if (free > pickFree) {
                        pickFree = free;
                        pickGroup = n.affinity[g];
                    }
                }
            }
            for (int g = 0; g < n.gpuCount && got < k; g++) {
                if (n.usedMilli[g] == 0 && n.healthBits[g] == 0 && !taken[g] && n.affinity[g] == pickGroup) {
                    taken[g] = true;
                    out[got++] = g;
                }
            }
        }
        Arrays.sort(out);
        return out;
    }

    private static int freeInGroup(final NodeState n, final int grp) {
        int free = 0;
        for (int g = 0; g < n.gpuCount; g++) {
            if (n.usedMilli[g] == 0 && n.healthBits[g] == 0 && n.affinity[g] == grp) {
                free++;
            }
        }
        return free;
    }

    // ---- fragmentation deltas ----

    /**
     * The fgd ranking key (lower better) for a fragmentation growth {@code d} (counts x milli-GPU): d
     * itself, or with fgd-integer-score FGD's plugin score negated, int(100 x sigmoid(-growth / 1000))
     * with the growth per arriving task in milli-GPU. FGD counts all free GPU of a node as fragment to
     * a CPU-only task, so placing milli-GPU there shrinks that part by its weight x the placed milli.
     */
    private long fgdKey(final long d, final long placedMilli) {
        if (!cfg.fgdIntegerScore()) {
            return d;
        }
        final JobSizeMix mix = st.sizeMix;
        final double growth = (d - (double) mix.cpuOnlyWeight * placedMilli) / Math.max(1, mix.totalWeight);
        return -(long) (100.0 / (1.0 + StrictMath.exp(growth / 1000.0)));
    }

    private long deltaWhole(final NodeState n, final int[] gpus, final long cpu) {
        Fragmentation.freeOf(n, freeBefore);
        System.arraycopy(freeBefore, 0, freeAfter, 0, n.gpuCount);
        for (final int g : gpus) {
            freeAfter[g] = 0;
        }
        return delta(n, cpu);
    }

    private long delta(final NodeState n, final long cpu) {
        if (n.fragMixVersion != st.sizeMix.version) {
            n.fragNow = Fragmentation.expected(st.sizeMix, st.models, n.modelIndex, freeBefore, n.gpuCount, n.cpuFree);
            n.fragMixVersion = st.sizeMix.version;
        }
        final long before = n.fragNow;
        final long after = Fragmentation.expected(st.sizeMix, st.models, n.modelIndex, freeAfter, n.gpuCount, n.cpuFree - cpu);
        return after - before;
    }
}
