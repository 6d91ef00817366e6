package io.gpupool.scheduler.core;

public enum DecisionKind {
    PLACED,
    QUEUED,
    REJECTED,
    EVICTED,
    CANCELLED,
    RELEASED
}
