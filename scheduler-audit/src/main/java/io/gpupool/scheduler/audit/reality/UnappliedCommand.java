package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.NodeCommand;

/** A node command the sink never reported APPLIED, although it had time to. */
public record UnappliedCommand(NodeCommand command, String placementId) {

    public long issuedAtMs() {
        return command.getCause().getTimestamp().toEpochMilli();
    }

    public String describe() {
        return "unapplied command " + command.getCommandId() + ": " + command.getType() + " of job " + command.getJobId()
                + " placement " + (placementId == null ? "(unknown)" : placementId) + " to node " + command.getNodeId()
                + (command.getGpus().isEmpty() ? "" : " GPUs " + command.getGpus().stream().map(GpuAssignment::getUuid)
                        .toList()) + " issued at " + Moments.at(issuedAtMs()) + ": no APPLIED event";
    }
}
