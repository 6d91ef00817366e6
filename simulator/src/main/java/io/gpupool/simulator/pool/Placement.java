package io.gpupool.simulator.pool;

import java.util.List;

/** The engine placed {@code jobId} on these nodes (one entry per node of the gang). */
public record Placement(String jobId, List<String> nodeIds) {

    public Placement {
        nodeIds = List.copyOf(nodeIds);
    }
}
