package io.gpupool.sink.events;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.NodeCommand;
import io.gpupool.sink.apply.JobPart;
import java.time.Instant;
import java.util.List;

/**
 * Builds the JobEvents a sink reports. The event id is the command id and the event type, so the
 * same fact reported twice (after a crash) has the same id and a reader can drop the copy.
 */
public final class JobEvents {

    private JobEvents() {
    }

    public static String eventId(final String commandId, final JobEventType type) {
        return commandId + "/" + type.name();
    }

    /** The command took effect on the node (any command type). */
    public static JobEvent applied(final NodeCommand c, final Instant at) {
        return event(c.getJobId(), c.getCommandId(), JobEventType.APPLIED, c.getDecisionId(), c.getNodeId(), at, null,
                c.getReason(), c.getGpus().stream().map(g -> g.getUuid()).toList());
    }

    /** A part event (STARTED, COMPLETED, FAILED) answering the ALLOCATE that created the part. */
    public static JobEvent ofPart(final JobPart p, final JobEventType type, final Instant at, final Integer exitCode,
                                  final String reason) {
        return event(p.jobId(), p.commandId(), type, p.decisionId(), p.nodeId(), at, exitCode, reason, p.gpuUuids());
    }

    /** EVICTED: answers the EVICT command and carries the eviction's decision id. */
    public static JobEvent evicted(final JobPart p, final String evictCommandId, final String evictDecisionId,
                                   final Instant at, final Integer exitCode, final String reason) {
        return event(p.jobId(), evictCommandId, JobEventType.EVICTED, evictDecisionId, p.nodeId(), at, exitCode, reason,
                p.gpuUuids());
    }

    /** The event a ledger outcome describes, as it was first sent (same id). */
    public static JobEvent ofOutcome(final JobPart p, final io.gpupool.sink.ledger.LedgerEntry.Event o, final Instant at) {
        return event(p.jobId(), o.commandId(), JobEventType.valueOf(o.type()), o.decisionId(), p.nodeId(), at,
                o.exitCode(), o.reason(), p.gpuUuids());
    }

    /** What the ledger keeps of a terminal event. */
    public static io.gpupool.sink.ledger.LedgerEntry.Event toOutcome(final JobEvent e) {
        return new io.gpupool.sink.ledger.LedgerEntry.Event(e.getType().name(), e.getCommandId(), e.getDecisionId(),
                e.getExitCode(), e.getReason());
    }

    private static JobEvent event(final String jobId, final String commandId, final JobEventType type,
                                  final String decisionId, final String nodeId, final Instant at, final Integer exitCode,
                                  final String reason, final List<String> gpus) {
        return JobEvent.newBuilder().setJobId(jobId).setEventId(eventId(commandId, type)).setType(type)
                .setDecisionId(decisionId).setCommandId(commandId).setNodeId(nodeId).setOccurredAt(at)
                .setExitCode(exitCode).setReason(reason).setGpuUuids(gpus).build();
    }
}
