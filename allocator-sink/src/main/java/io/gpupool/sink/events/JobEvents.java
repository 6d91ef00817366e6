package io.gpupool.sink.events;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.NodeCommand;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.ledger.LedgerEntry;
import java.time.Instant;
import java.util.List;

/**
 * Builds the JobEvents a sink reports. The event id is the command id and the event type, so the
 * same fact reported twice (after a crash) has the same id and a reader can drop the copy. Every
 * event names the placement it is about: the scheduler applies an event only to that placement,
 * so a late event of a job's earlier placement cannot end its current one.
 */
public final class JobEvents {

    private JobEvents() {
    }

    public static String eventId(final String commandId, final JobEventType type) {
        return commandId + "/" + type.name();
    }

    /**
     * The command took effect on the node (any command type). {@code placementId}: for an ALLOCATE
     * the part it creates; for a stop the placement it names, or the part it found when it names none.
     */
    public static JobEvent applied(final NodeCommand c, final String placementId, final Instant at) {
        return event(c.getJobId(), c.getCommandId(), JobEventType.APPLIED, c.getDecisionId(), placementId, c.getNodeId(),
                at, null, c.getReason(), c.getGpus().stream().map(GpuAssignment::getUuid).toList());
    }

    /** A part event (STARTED, COMPLETED, FAILED) answering the ALLOCATE that created the part. */
    public static JobEvent ofPart(final JobPart p, final JobEventType type, final Instant at, final Integer exitCode,
                                  final String reason) {
        return event(p.jobId(), p.commandId(), type, p.decisionId(), p.placementId(), p.nodeId(), at, exitCode, reason,
                p.gpuUuids());
    }

    /**
     * EVICTED or RELEASED: the part was stopped by that command. It answers the stop command and
     * carries the stop's decision id, and the part's placement.
     */
    public static JobEvent stopped(final JobPart p, final JobEventType type, final String stopCommandId,
                                   final String stopDecisionId, final Instant at, final Integer exitCode,
                                   final String reason) {
        return event(p.jobId(), stopCommandId, type, stopDecisionId, p.placementId(), p.nodeId(), at, exitCode, reason,
                p.gpuUuids());
    }

    /** The event a ledger outcome describes, as it was first sent (same id, same placement). */
    public static JobEvent ofOutcome(final JobPart p, final LedgerEntry.Event o, final Instant at) {
        // An outcome written before events carried placements: it was about the part's placement.
        final String placement = o.placementId() != null ? o.placementId() : p.placementId();
        return event(p.jobId(), o.commandId(), JobEventType.valueOf(o.type()), o.decisionId(), placement, p.nodeId(), at,
                o.exitCode(), o.reason(), p.gpuUuids());
    }

    /** What the ledger keeps of a terminal event. */
    public static LedgerEntry.Event toOutcome(final JobEvent e) {
        return new LedgerEntry.Event(e.getType().name(), e.getCommandId(), e.getDecisionId(), e.getPlacementId(),
                e.getExitCode(), e.getReason());
    }

    private static JobEvent event(final String jobId, final String commandId, final JobEventType type,
                                  final String decisionId, final String placementId, final String nodeId,
                                  final Instant at, final Integer exitCode, final String reason, final List<String> gpus) {
        return JobEvent.newBuilder().setJobId(jobId).setEventId(eventId(commandId, type)).setType(type)
                .setDecisionId(decisionId).setPlacementId(placementId).setCommandId(commandId).setNodeId(nodeId)
                .setOccurredAt(at).setExitCode(exitCode).setReason(reason).setGpuUuids(gpus).build();
    }
}
