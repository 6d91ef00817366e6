package io.gpupool.scheduler.audit.reality;

import java.util.List;

/**
 * A part the sinks reported that no allocation accounts for: events about a placement or node that
 * was never commanded, or a part that started after its allocation was ended and never reported its
 * end. {@code atMs} is the moment of the event that gives it away.
 */
public record OrphanPart(String jobId, String placementId, String nodeId, String why, long atMs, List<String> gpus) {

    public OrphanPart {
        gpus = List.copyOf(gpus);
    }

    public String describe() {
        return "orphan part: job " + jobId + " placement " + (placementId == null ? "(none named)" : placementId)
                + " on node " + (nodeId == null ? "(none named)" : nodeId) + (gpus.isEmpty() ? "" : " GPUs " + gpus)
                + " at " + Moments.at(atMs) + ": " + why;
    }
}
