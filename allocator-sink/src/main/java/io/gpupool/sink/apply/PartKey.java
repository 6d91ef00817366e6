package io.gpupool.sink.apply;

import java.util.Objects;

/** A job on a node. An evicted and re-placed job gets a new part under the same key, never two at once. */
public record PartKey(String jobId, String nodeId) {
    public PartKey {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(nodeId, "nodeId");
    }

    @Override
    public String toString() {
        return jobId + "@" + nodeId;
    }
}
