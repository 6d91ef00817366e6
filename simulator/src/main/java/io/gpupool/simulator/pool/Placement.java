package io.gpupool.simulator.pool;

import java.util.List;

/**
 * The engine placed {@code jobId} on these nodes (one entry per node of the gang), on these GPU
 * indices of each node (empty lists for a CPU-only job).
 */
public record Placement(String jobId, List<String> nodeIds, List<List<Integer>> gpusPerNode) {

    public Placement {
        nodeIds = List.copyOf(nodeIds);
        gpusPerNode = gpusPerNode.stream().<List<Integer>>map(List::copyOf).toList();
        if (gpusPerNode.size() != nodeIds.size()) {
            throw new IllegalArgumentException("placement of " + jobId + ": " + nodeIds.size() + " nodes but "
                    + gpusPerNode.size() + " GPU lists");
        }
    }
}
