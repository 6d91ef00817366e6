package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parts as the sinks reported them: walks the job events in the check's order (occurredAt, then
 * topic position; a copy of an event id already seen is dropped), adds each to the history of the part
 * it is about, notes which commands were applied, and keeps the events that are about nothing ever
 * commanded. An event's part is its {@code placementId} and {@code nodeId}; an older event without them
 * is about the part of the command it names.
 */
final class ReportedParts {
    /** An event about a placement and node that no ALLOCATE was sent for, with the pool it seems to be of. */
    record Uncommanded(OrphanPart part, String pool) {
    }

    private final Map<PartKey, PartHistory> parts = new LinkedHashMap<>();
    private final Set<String> applied = new HashSet<>();
    private final Map<String, Uncommanded> uncommanded = new LinkedHashMap<>();
    private final long endMs;

    ReportedParts(final Commanded commanded, final List<ReportedEvent> events) {
        commanded.allocations().forEach((key, allocate) -> parts.put(key, new PartHistory(key, allocate)));
        final List<ReportedEvent> ordered = new ArrayList<>(events);
        ordered.sort(ReportedEvent.ORDER);
        final Set<String> seen = new HashSet<>();
        long end = Long.MIN_VALUE;
        for (final NodeCommand c : commanded.all()) {
            end = Math.max(end, c.getCause().getTimestamp().toEpochMilli());
        }
        long seq = 0;
        for (final ReportedEvent r : ordered) {
            final JobEvent e = r.event();
            end = Math.max(end, r.atMs());
            if (!seen.add(e.getEventId())) {
                continue;
            }
            final PartHistory.Fact fact = new PartHistory.Fact(r.atMs(), seq++, e.getType() + " " + e.getEventId());
            final NodeCommand named = commanded.command(e.getCommandId());
            switch (e.getType()) {
                case APPLIED -> {
                    if (named == null) {
                        uncommanded(e, r, e.getPlacementId(), e.getNodeId(), commanded,
                                "reported APPLIED of command " + e.getCommandId() + ", which was never sent");
                        continue;
                    }
                    applied.add(named.getCommandId());
                    final String placement = commanded.placementOf(named);
                    final PartHistory h = placement == null ? null : parts.get(new PartKey(placement, named.getNodeId()));
                    if (h == null) {
                        continue; // a stop of a part never allocated: the engine's mistake, not the sink's
                    }
                    if (named.getType() == NodeCommandType.ALLOCATE) {
                        h.allocated(new PartHistory.Fact(fact.atMs(), fact.seq(), "APPLIED of ALLOCATE " + named.getCommandId()));
                    } else {
                        h.stopApplied(new PartHistory.Fact(fact.atMs(), fact.seq(),
                                "APPLIED of " + named.getType() + " " + named.getCommandId()));
                    }
                }
                case STARTED, COMPLETED, FAILED, EVICTED, RELEASED -> {
                    final String placement = e.getPlacementId() != null ? e.getPlacementId()
                            : named == null ? null : commanded.placementOf(named);
                    final String node = e.getNodeId() != null ? e.getNodeId() : named == null ? null : named.getNodeId();
                    final PartHistory h = placement == null || node == null ? null : parts.get(new PartKey(placement, node));
                    if (h == null) {
                        uncommanded(e, r, placement, node, commanded, "reported " + e.getType() + ", but "
                                + whyUncommanded(e, placement, node));
                    } else if (e.getType() == JobEventType.STARTED) {
                        h.started(fact);
                    } else {
                        h.ended(fact);
                    }
                }
                default -> {
                    // UNKNOWN: a type this reader does not know says nothing about a part
                }
            }
        }
        this.endMs = end;
    }

    private static String whyUncommanded(final JobEvent e, final String placement, final String node) {
        if (placement == null && e.getCommandId() != null) {
            return "it names command " + e.getCommandId() + ", which was never sent";
        }
        if (placement == null) {
            return "it names no placement and no command";
        }
        if (node == null) {
            return "it names no node";
        }
        return "no ALLOCATE of this placement was sent to this node";
    }

    private void uncommanded(final JobEvent e, final ReportedEvent r, final String placement, final String node,
                             final Commanded commanded, final String why) {
        final NodeCommand named = commanded.command(e.getCommandId());
        final String pool = named != null ? named.getPool() : commanded.poolOf(placement, node);
        uncommanded.putIfAbsent(e.getJobId() + "|" + placement + "|" + node, new Uncommanded(
                new OrphanPart(e.getJobId(), placement, node, why, r.atMs(), e.getGpuUuids()), pool));
    }

    /** Every commanded part, with what the sinks reported about it. */
    Iterable<PartHistory> parts() {
        return parts.values();
    }

    boolean applied(final String commandId) {
        return applied.contains(commandId);
    }

    /** The first event of each reported part that nothing commanded. */
    Iterable<Uncommanded> uncommanded() {
        return uncommanded.values();
    }

    /** The moment of the history's last record, command or event ({@link Long#MIN_VALUE} when empty). */
    long endMs() {
        return endMs;
    }
}
