package io.gpupool.scheduler.core;

import java.util.Objects;

/** An instruction to one node, caused by a decision. */
public record NodeCommand(String nodeId, CommandKind kind, String jobId, String decisionId,
                          NodeAssignment assignment) {
    public NodeCommand {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(decisionId, "decisionId");
        Objects.requireNonNull(assignment, "assignment");
    }
}
