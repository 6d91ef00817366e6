package io.gpupool.scheduler.audit.reality;

/** A part: one job's share of one node for one placement. */
public record PartKey(String placementId, String nodeId) {

    @Override
    public String toString() {
        return "placement " + placementId + " on node " + nodeId;
    }
}
