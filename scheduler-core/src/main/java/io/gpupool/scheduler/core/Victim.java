package io.gpupool.scheduler.core;

import java.util.Comparator;

/** One eligible victim of a search, with its level and lost GPU-time ({@link VictimCost}) taken once. */
final class Victim {
    /** Cheapest first: less lost, then younger. */
    static final Comparator<Victim> CHEAPEST = Comparator.<Victim>comparingLong(v -> v.lost)
            .thenComparingLong(v -> -v.job.submitSeq);

    final Job job;
    final long level;
    final long lost;
    /** Scratch: parts on the candidate nodes of the scope being solved. */
    int partsInScope;

    Victim(final Job job, final long nowMs) {
        this.job = job;
        this.level = VictimCost.level(job);
        this.lost = VictimCost.lost(job, nowMs);
    }
}
