package io.gpupool.scheduler.core;

import java.util.List;

/**
 * How one scoring policy ranks and orders the placements that pass the filters: one class per
 * {@link ScoringPolicy}, chosen once per engine by {@link #of}. {@link PlacementSearch} does what all
 * policies share (the models a job may use, the walk for a GPU share, the gang's topology scopes) and
 * asks the policy at each point where the policies differ. Implementations may keep scratch state:
 * the engine is single-threaded and a search never nests.
 */
interface PlacementPolicy {

    static PlacementPolicy of(final PoolState st, final EngineConfig cfg, final ModelStats stats, final NodeScan scan) {
        final SeededDraw draws = new SeededDraw(cfg.seed(), cfg.randomTies());
        return switch (cfg.policy()) {
            case FIRST_FIT -> new FirstFitPlacement(st, scan, draws);
            case BEST_FIT -> new BestFitPlacement(st, cfg.bestFitCpuWeight(), stats, scan, draws);
            case FGD -> new FgdPlacement(st, cfg.fgdIntegerScore(), scan, draws);
            case RANDOM -> new RandomPlacement(st, scan, draws);
        };
    }

    /** One node with {@code k} whole GPUs (none: CPU only) among the given models; null when none fits. */
    Candidate single(JobSpec job, int[] models, int k);

    /** The rank of a share of GPU {@code g} on node {@code n}: lower is better. */
    long shareKey(NodeState n, int g, JobSpec job);

    /** Between equal share keys: lower wins; {@code gpuFree} is the GPU's free milli before placement. */
    long shareTie(JobSpec job, NodeState n, int gpuFree, int g);

    /**
     * Whether no whole free GPU on nodes with {@code bucket} or more free GPUs can rank a share of
     * {@code milli} before {@code bestKey}, so that the share walk can stop climbing the buckets.
     */
    default boolean shareOutOfReach(final int bucket, final int milli, final long bestKey) {
        return false;
    }

    /** Whether the share walk offers only the first fitting node of each bucket. */
    default boolean oneSharePerBucket() {
        return false;
    }

    /** Whether gangs go to the tightest uncongested leaf or spine first (otherwise fabric order). */
    default boolean packsGangs() {
        return true;
    }

    /**
     * The gang's nodes from the given leaves' groups (in that order), {@code job.gpusPerNode()} whole
     * GPUs each; null when they cannot hold it.
     */
    Candidate gang(JobSpec job, int model, List<CapacityIndex.Group> groups, GangScope scope);
}
