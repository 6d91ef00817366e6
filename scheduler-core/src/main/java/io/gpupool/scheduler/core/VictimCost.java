package io.gpupool.scheduler.core;

import java.util.Collection;

/**
 * What evicting a victim set costs ({@link VictimSearch.Cost}), compared lexicographically, lower
 * is cheaper:
 * <ol>
 * <li>the level of the most important victim: max over S of (priority class, priority);</li>
 * <li>the GPU-time lost: sum over S of milli-GPUs held x stream time since the job started (since it
 *     was placed when it has not reported a start);</li>
 * <li>the number of victims;</li>
 * <li>the younger victims: the larger sum of submission sequence numbers is cheaper.</li>
 * </ol>
 * Every component is monotone: a proper superset of S costs more than S (1 and 2 never fall, 3
 * rises), so a cheapest set is always inclusion-minimal: every victim is needed, and any placement
 * the freed capacity allows uses every victim's resources. That is the topology consistency the
 * Kueue issue 5243 asks for: no job is evicted on a leaf (or node) that still would not take the job.
 */
final class VictimCost {
    /** Level of a node (or scope) that fits without evicting anything; also the level of no victims. */
    static final long FREE = Long.MIN_VALUE;
    /** Level of a node (or scope) that no eviction makes fit. */
    static final long NEVER = Long.MAX_VALUE;

    private VictimCost() {
    }

    /** (priority class, priority) as one number, increasing with importance. */
    static long level(final Job v) {
        return ((long) v.spec.priorityClass().ordinal() << 32) + ((long) v.spec.priority() - Integer.MIN_VALUE);
    }

    /** Milli-GPU x ms the job has run: what evicting it throws away. */
    static long lost(final Job v, final long nowMs) {
        final long start = v.startedAtMs > 0 ? v.startedAtMs : v.placedAtMs;
        final long ran = Math.max(0, StreamTime.minus(nowMs, start));
        return StreamTime.times(v.spec.totalGpuMilli(), ran);
    }

    static VictimSearch.Cost of(final Collection<Job> set, final long nowMs) {
        long level = FREE;
        long lost = 0;
        long seq = 0;
        for (final Job v : set) {
            level = Math.max(level, level(v));
            lost = StreamTime.plus(lost, lost(v, nowMs));
            seq += v.submitSeq;
        }
        return new VictimSearch.Cost(level, lost, set.size(), seq);
    }

    /** The level as the words a reason uses: "BATCH priority 3". */
    static String describeLevel(final long level) {
        return PriorityClass.values()[(int) (level >>> 32)] + " priority "
                + (int) ((level & 0xFFFF_FFFFL) + Integer.MIN_VALUE);
    }
}
