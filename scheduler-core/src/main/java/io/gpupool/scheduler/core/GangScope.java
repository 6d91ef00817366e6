package io.gpupool.scheduler.core;

/** How close together the nodes of a gang must (or should) be in the fabric tree. */
public enum GangScope {
    /** All GPUs on one node. */
    NODE,
    /** All nodes under one leaf switch. */
    LEAF,
    /** All nodes under one spine. */
    SPINE,
    /** Anywhere in the pool. */
    POOL
}
