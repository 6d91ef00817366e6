package io.gpupool.scheduler.core;

import java.util.List;

/**
 * The best-fit (bin-packing) policy: the node(s) left with the least free capacity after placement,
 * by GPUs left or, with best-fit-cpu-weight, by weighted CPU and GPU left as the FGD paper's
 * BestFit baseline scores it.
 */
final class BestFitPlacement implements PlacementPolicy {
    private final PoolState st;
    private final double cpuWeight;
    private final boolean weighted;
    private final ModelStats stats;
    private final NodeScan scan;
    private final SeededDraw draws;

    BestFitPlacement(final PoolState st, final double cpuWeight, final ModelStats stats, final NodeScan scan,
                     final SeededDraw draws) {
        this.st = st;
        this.cpuWeight = cpuWeight;
        this.weighted = cpuWeight > 0;
        this.stats = stats;
        this.scan = scan;
        this.draws = draws;
    }

    /**
     * Buckets in order: by GPUs left, the first fitting node wins. Weighted, the least weighted
     * capacity left wins; nodes in bucket b keep at least (b - k) free GPUs, so the walk stops once
     * no node in the next bucket can beat the best score.
     */
    @Override
    public Candidate single(final JobSpec job, final int[] models, final int k) {
        final ModelStats s = weighted ? stats.current(st) : null;
        NodeState best = null;
        int bestModel = -1;
        long bestScore = Long.MAX_VALUE;
        long bestTie = Long.MAX_VALUE;
        for (int b = k; b <= NodeSpec.MAX_GPUS_PER_NODE; b++) {
            if (weighted && bestFitKey(gpuTerm((b - k) * 1000L, s)) > bestScore) {
                break;
            }
            for (final int m : models) {
                if (st.index.modelCount(m, b) == 0) {
                    continue;
                }
                for (final CapacityIndex.Group g : st.index.groupsOf(m)) {
                    if (g.allCount[b] == 0) {
                        continue; // most leaves hold no node of this bucket: skip them without a call into the walk
                    }
                    for (NodeState n = scan.first(g, b, b, false, job); n != null; n = scan.next()) {
                        if (!weighted) {
                            return GpuChoice.wholeOn(m, n, k, b - k);
                        }
                        final long score = bestFitKey(weightedLeft(n, job.cpuMilliPerNode(), n.freeMilliHealthy() - k * 1000L, s));
                        final long t = draws.tie(job, n.slot);
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
        return best == null ? null : GpuChoice.wholeOn(bestModel, best, k, bestScore);
    }

    /**
     * The weighted best-fit score as FGD's BestFit plugin has it: the share of the largest node left
     * free after placement, as an integer score 0..100 (higher better); returned negated, lower better.
     */
    static long bestFitKey(final double left) {
        return -(long) ((1.0 - left) * 100);
    }

    private double gpuTerm(final long milliLeft, final ModelStats s) {
        return (1 - cpuWeight) * milliLeft / Math.max(1.0, s.maxGpuMilliAll);
    }

    private double weightedLeft(final NodeState n, final long cpu, final long milliLeft, final ModelStats s) {
        return cpuWeight * (n.cpuFree - cpu) / Math.max(1.0, s.maxCpuAll) + gpuTerm(milliLeft, s);
    }

    /** The node's free milli-GPU after the share, or weighted as for a single node. */
    @Override
    public long shareKey(final NodeState n, final int g, final JobSpec job) {
        return weighted
                ? bestFitKey(weightedLeft(n, job.cpuMilliPerNode(), n.freeMilliHealthy() - job.gpuMilli(), stats.current(st)))
                : n.freeMilliHealthy() - job.gpuMilli();
    }

    @Override
    public long shareTie(final JobSpec job, final NodeState n, final int gpuFree, final int g) {
        return draws.shareTie(job, n, gpuFree);
    }

    /** By GPUs left, a node with b free whole GPUs keeps at least b x 1000 - milli after the share. */
    @Override
    public boolean shareOutOfReach(final int bucket, final int milli, final long bestKey) {
        return !weighted && (long) bucket * 1000 - milli > bestKey;
    }

    @Override
    public Candidate gang(final JobSpec job, final int model, final List<CapacityIndex.Group> groups,
                          final GangScope scope) {
        return packGang(st, scan, job, model, groups, scope);
    }

    /**
     * The gang packed leaf by leaf (in the given order): within a leaf, the nodes left with the
     * fewest free GPUs first; scored by the GPUs left free on its nodes.
     */
    static Candidate packGang(final PoolState st, final NodeScan scan, final JobSpec job, final int model,
                              final List<CapacityIndex.Group> groups, final GangScope scope) {
        final int k = job.gpusPerNode();
        final int[] slots = new int[job.nodes()];
        int got = 0;
        double score = 0;
        for (final CapacityIndex.Group g : groups) {
            for (NodeState n = scan.first(g, k, g.maxGpus, true, job); n != null; n = scan.next()) {
                slots[got++] = n.slot;
                score += scan.bucket() - k;
                if (got == slots.length) {
                    return GpuChoice.wholeOnEach(st, model, slots, k, score, scope);
                }
            }
        }
        return null;
    }
}
