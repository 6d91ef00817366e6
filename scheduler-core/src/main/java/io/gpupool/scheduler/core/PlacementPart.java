package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Objects;

/**
 * The part of a placement on one node.
 *
 * @param gpus      GPU indices on the node
 * @param gpuMilli  per GPU: 1000 for whole GPUs, less for a share
 */
public record PlacementPart(String nodeId, List<Integer> gpus, int gpuMilli, long gpuMemoryMib,
                             long cpuMilli, long memoryMib) {
    public PlacementPart {
        Objects.requireNonNull(nodeId, "nodeId");
        gpus = List.copyOf(gpus);
    }
}
