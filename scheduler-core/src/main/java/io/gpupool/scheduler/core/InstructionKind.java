package io.gpupool.scheduler.core;

/** What a node must do. */
public enum InstructionKind {
    /** Reserve the GPUs/CPU/memory and start the job's part on this node. */
    ALLOCATE,
    /** The job finished here; free its allocation. */
    RELEASE,
    /** Stop the job's part on this node now (preemption, failed hardware, cancellation). */
    EVICT
}
