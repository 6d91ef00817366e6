package io.gpupool.scheduler.core;

import java.util.Objects;

/**
 * What the engine made of a job event that it did not apply: a late event of an earlier placement
 * (expected: sinks report asynchronously) or one it refused because it names a job, placement or node
 * that the engine never commanded (a sink bug or a forged event).
 */
public record JobEventNote(String jobId, Kind kind, String message) {
    public enum Kind {
        /** About an earlier placement of the job, or one that ended: changes nothing. */
        STALE,
        /**
         * About a job this pool does not know (never placed here, or finished longer ago than the pool
         * retains finished jobs): changes nothing, and there is no placement to hold it against.
         */
        UNKNOWN_JOB,
        /** Names a placement or node never commanded for the job, or no placement at all. */
        REFUSED
    }

    public JobEventNote {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }
}
