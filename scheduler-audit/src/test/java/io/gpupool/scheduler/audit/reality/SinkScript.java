package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Hand-built sink histories for the reality tests: commands issued and events reported at seconds
 * after {@link #T0}, events arriving on the job-events topic in the order they are written here
 * (so a test can make one arrive late). {@link #old()} writes records as they were before
 * {@code placementId} existed.
 */
final class SinkScript {
    static final long T0 = Instant.parse("2025-03-01T12:00:00Z").toEpochMilli();

    private final List<NodeCommand> commands = new ArrayList<>();
    private final List<ReportedEvent> events = new ArrayList<>();
    private boolean old;
    private long cause;
    private String pool = "p";

    static long at(final double seconds) {
        return T0 + Math.round(seconds * 1000);
    }

    static GpuAssignment gpu(final String uuid, final int milli) {
        return new GpuAssignment(uuid, uuid.isEmpty() ? 0 : uuid.hashCode() & 7, milli);
    }

    /** Records from here on carry no placementId (written by a scheduler and sinks from before it). */
    SinkScript old() {
        old = true;
        return this;
    }

    SinkScript pool(final String p) {
        pool = p;
        return this;
    }

    /** An ALLOCATE of placement (= its decision id) {@code placement} on {@code node}. */
    NodeCommand allocate(final String job, final String placement, final String node, final double issuedS,
                         final GpuAssignment... gpus) {
        return command(NodeCommandType.ALLOCATE, placement, job, placement, node, issuedS, List.of(gpus));
    }

    /** A RELEASE or EVICT (decision {@code decision}) ending {@code placement} on {@code node}. */
    NodeCommand stop(final NodeCommandType type, final String job, final String decision, final String placement,
                     final String node, final double issuedS) {
        return command(type, decision, job, placement, node, issuedS, List.of());
    }

    private NodeCommand command(final NodeCommandType type, final String decision, final String job,
                                final String placement, final String node, final double issuedS,
                                final List<GpuAssignment> gpus) {
        final NodeCommand c = NodeCommand.newBuilder().setCommandId(decision + "/" + node).setDecisionId(decision)
                .setPlacementId(old ? null : placement).setType(type).setNodeId(node).setJobId(job).setPool(pool)
                .setGpus(gpus).setCause(new JournalPosition(0, cause++, Instant.ofEpochMilli(at(issuedS)))).build();
        commands.add(c);
        return c;
    }

    /** The sink applied the command. */
    SinkScript applied(final NodeCommand c, final double atS) {
        return event(JobEventType.APPLIED, c, c.getPlacementId(), c.getNodeId(), atS);
    }

    /**
     * A part event: STARTED, COMPLETED, FAILED, RELEASED name the part's ALLOCATE, EVICTED the EVICT
     * (as the sink writes them); the placement is the ALLOCATE's.
     */
    SinkScript part(final JobEventType type, final NodeCommand named, final String placement, final double atS) {
        return event(type, named, placement, named.getNodeId(), atS);
    }

    SinkScript part(final JobEventType type, final NodeCommand allocate, final double atS) {
        return part(type, allocate, allocate.getDecisionId(), atS);
    }

    /** An event as a sink could write it, about anything. */
    SinkScript event(final JobEventType type, final NodeCommand named, final String placement, final String node,
                     final double atS) {
        return report(JobEvent.newBuilder().setJobId(named.getJobId())
                .setEventId(named.getCommandId() + "/" + type + "/" + events.size()).setType(type)
                .setDecisionId(named.getDecisionId()).setCommandId(named.getCommandId())
                .setPlacementId(old ? null : placement).setNodeId(node).setOccurredAt(Instant.ofEpochMilli(at(atS)))
                .build());
    }

    SinkScript report(final JobEvent e) {
        events.add(new ReportedEvent(0, events.size(), e));
        return this;
    }

    SinkHistory history() {
        return SinkHistory.complete(commands, events);
    }

    List<ReportedEvent> events() {
        return events;
    }

    List<NodeCommand> commands() {
        return commands;
    }
}
