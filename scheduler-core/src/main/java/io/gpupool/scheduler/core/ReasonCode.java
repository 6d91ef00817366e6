package io.gpupool.scheduler.core;

/** The one dominant reason behind a decision. */
public enum ReasonCode {
    // PLACED / RELEASED / CANCELLED
    PLACED,
    COMPLETED,
    FAILED,
    CANCELLED_BY_USER,
    // QUEUED: waits for capacity that can come
    INSUFFICIENT_FREE_GPUS,
    UNHEALTHY_GPUS,
    NO_NODE_WITH_ENOUGH_FREE_GPUS,
    NO_LEAF_FOR_GANG,
    NO_SPINE_FOR_GANG,
    LINK_EXCLUDED,
    INSUFFICIENT_CPU_OR_MEMORY,
    INSUFFICIENT_GPU_MEMORY,
    NETWORK_UNAVAILABLE,
    NO_NODES,
    QUOTA_EXHAUSTED,
    RESERVED_FOR_HEAD_OF_QUEUE,
    WAITING_FOR_HIGHER_PRIORITY,
    // REJECTED: can never fit
    INVALID_REQUEST,
    UNKNOWN_MODEL,
    EXCEEDS_POOL_CAPACITY,
    GANG_LARGER_THAN_POOL,
    DEADLINE_UNREACHABLE,
    DUPLICATE_JOB,
    // EVICTED
    HARDWARE_FAILURE,
    LINK_FAILURE,
    NODE_REMOVED,
    PREEMPTED,
    CONSOLIDATED,
    EVICTED_BY_NODE,
    // REJECTED: shed, the pool's queue is at max-waiting-jobs (may fit later: submit again)
    QUEUE_FULL
}
