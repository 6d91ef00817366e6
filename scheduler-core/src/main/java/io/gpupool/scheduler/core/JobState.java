package io.gpupool.scheduler.core;

/** Where a job is in its life. */
public enum JobState {
    QUEUED,
    /** Resources allocated, the node side has not reported it running yet. */
    PLACED,
    RUNNING,
    COMPLETED,
    FAILED,
    CANCELLED,
    REJECTED,
    /** Evicted and not requeued. */
    EVICTED;

    public boolean holdsResources() {
        return this == PLACED || this == RUNNING;
    }

    public boolean finished() {
        return this == COMPLETED || this == FAILED || this == CANCELLED || this == REJECTED || this == EVICTED;
    }
}
