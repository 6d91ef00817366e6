package io.gpupool.scheduler.core;

import java.util.ArrayDeque;
import java.util.List;

/** A job the engine knows: its request and where it stands. */
final class Job {
    /**
     * Earlier placements remembered per job: a late event of an older one is refused as unknown. A job is
     * evicted and placed again rarely; 16 covers any sink delay seen in practice and keeps snapshots small.
     */
    static final int EARLIER_KEPT = 16;

    final JobSpec spec;
    /** Submission order; the final tie-break of every queue ordering. */
    final long submitSeq;
    final long submitMs;
    /** {@link QueuePass#shapeKey} of the request, computed once. */
    final Object shape;
    /** The queue-pass round in which the job (last) entered the queue: a round skips jobs it requeued itself. */
    long enqueuedInRound;
    JobState state = JobState.QUEUED;
    /** Decision id of the PLACED decision the job holds resources under; "" while it holds none. */
    String placementId = "";
    /** The job's earlier placements, oldest first (at most {@link #EARLIER_KEPT}): their late events are expected. */
    final ArrayDeque<String> earlierPlacements = new ArrayDeque<>();
    /** Job events that named an earlier placement (late, changed nothing). */
    int staleEvents;
    /** Job events refused: they named a placement or node the engine never commanded for this job. */
    int refusedEvents;
    /** Why the last refused event was refused ("" when none was). */
    String lastRefusal = "";
    List<PlacementPart> placement = List.of();
    int[] slots = new int[0];
    long placedAtMs;
    long startedAtMs;
    /** When the job (last) entered the queue. */
    long queuedSinceMs;
    int evictions;
    /** The runtime estimate taken when the job was placed: fixes its expected end for reservations. */
    long estimatedRuntimeMs;
    Reason currentReason;
    Decision lastDecision;
    /** Set when the job was evicted by preemption: the job that took its place. */
    String preemptedBy = "";
    /** Deadline reported as unreachable once (reported, not repeated). */
    boolean deadlineMissReported;
    /**
     * Stream time consolidation last moved this job or moved others to place it ({@code Long.MIN_VALUE}:
     * never); within {@code consolidation-cooldown-ms} of it consolidation leaves the job where it is.
     */
    long consolidatedAtMs = Long.MIN_VALUE;

    Job(final JobSpec spec, final long submitSeq, final long submitMs) {
        this.spec = spec;
        this.submitSeq = submitSeq;
        this.submitMs = submitMs;
        this.shape = QueuePass.shapeKey(spec);
        this.queuedSinceMs = submitMs;
    }

    String id() {
        return spec.jobId();
    }

    /** Whole-GPU-equivalents this job holds (shares count as their fraction). */
    double gpus() {
        return spec.nodes() * spec.gpusPerNode() * (spec.gpuMilli() / 1000.0);
    }
}
