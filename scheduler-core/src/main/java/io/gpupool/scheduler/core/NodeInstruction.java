package io.gpupool.scheduler.core;

import java.util.Objects;

/**
 * An instruction to one node, caused by a decision.
 *
 * @param placementId the placement the command is about: for ALLOCATE its own decision id, for RELEASE
 *                    and EVICT the placement they end. The sink's job events carry it back, and the
 *                    engine applies an event only to the placement it names.
 */
public record NodeInstruction(String nodeId, InstructionKind kind, String jobId, String decisionId, String placementId,
                          PlacementPart assignment) {
    public NodeInstruction {
        Objects.requireNonNull(placementId, "placementId");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(decisionId, "decisionId");
        Objects.requireNonNull(assignment, "assignment");
    }
}
