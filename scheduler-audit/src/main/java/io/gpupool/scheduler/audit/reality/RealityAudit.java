package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.NodeCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks what the sinks report they ran, not what the engine decided: a replay of the journal repeats
 * the engine's own mistakes (a late event of an earlier placement applied to the current one), while
 * the sinks' events show the GPUs really given twice. From every node command and job event it
 * rebuilds each part's ALLOCATED and RUNNING time ({@link PartHistory}) and finds:
 * <ul>
 *   <li>overallocated GPUs: running parts that together held more than the whole GPU (a GPU is its
 *       uuid, or node and index when the command gave none; shares are the ALLOCATE's milli-GPU);</li>
 *   <li>orphan parts: events about a placement or node never commanded, or a part that STARTED after a
 *       RELEASE/EVICT of it was applied and never reported its end (its share counts as running until
 *       the end of the history; a part never commanded has no known share and is not summed);</li>
 *   <li>unapplied commands: no APPLIED event at all, leaving out those issued in the last {@code grace}
 *       of the history (the sink may not have answered yet). An EVICT whose part never reported
 *       EVICTED is applied when its APPLIED is there.</li>
 * </ul>
 * Over one pool, only its commands and the events about them count (an event is placed in a pool by
 * the command or placement it names, else by its node; one that names nothing known is judged only
 * when all pools are). The window chooses the moments judged; moments the topics' retention may have
 * deleted records of are not judged.
 */
public final class RealityAudit {
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(60);
    static final int KEPT = 20;
    /** No reality check asked for (an audit of the decisions and commands only). */
    public static final RealityAudit NONE = new RealityAudit(null, null, DEFAULT_GRACE, null);

    private final SinkHistory sink;
    private final String pool;
    private final Duration grace;
    private final String whyNot;

    /** @param pool the pool audited, or null for all */
    public RealityAudit(final SinkHistory sink, final String pool, final Duration grace) {
        this(sink, pool, grace, null);
    }

    private RealityAudit(final SinkHistory sink, final String pool, final Duration grace, final String whyNot) {
        this.sink = sink;
        this.pool = pool;
        this.grace = grace;
        this.whyNot = whyNot;
    }

    /** The sink history cannot be read, for a reason the report gives ("topic X does not exist"). */
    public static RealityAudit notChecked(final String why) {
        return new RealityAudit(null, null, DEFAULT_GRACE, why);
    }

    public RealityReport check(final RealityWindow window) {
        if (sink == null) {
            return RealityReport.notChecked(whyNot);
        }
        final Commanded commanded = new Commanded(sink.commands());
        final ReportedParts reported = new ReportedParts(commanded, sink.events());
        final RealityWindow judged = window.from(Math.max(sink.commandsCompleteFromMs(), sink.eventsCompleteFromMs()));
        final List<OrphanPart> orphans = new ArrayList<>();
        long notJudged = 0;
        for (final ReportedParts.Uncommanded u : reported.uncommanded()) {
            if (!sink.commandsComplete()) {
                notJudged++; // its command may be one retention deleted
            } else if (inPool(u.pool()) && judged.contains(u.part().atMs())) {
                orphans.add(u.part());
            }
        }
        final Map<String, List<RunningShare>> byGpu = new LinkedHashMap<>();
        for (final PartHistory h : reported.parts()) {
            final NodeCommand a = h.allocate();
            if (!inPool(a.getPool()) || !h.ran()) {
                continue;
            }
            if (h.ranAfterAllocationEnded() && judged.contains(h.started().atMs())) {
                orphans.add(new OrphanPart(a.getJobId(), h.key().placementId(), a.getNodeId(), "reported STARTED after"
                        + " its allocation ended (" + h.allocationEnd().what() + " at " + Moments.at(h.allocationEnd().atMs())
                        + ") and never reported its end", h.started().atMs(),
                        a.getGpus().stream().map(GpuAssignment::getUuid).toList()));
            }
            for (final GpuAssignment g : a.getGpus()) {
                final String gpu = g.getUuid() == null || g.getUuid().isEmpty() ? a.getNodeId() + "/" + g.getIndex() : g.getUuid();
                byGpu.computeIfAbsent(gpu, k -> new ArrayList<>()).add(new RunningShare(gpu, a.getNodeId(), a.getJobId(),
                        h.key(), g.getMilli(), h.started().atMs(), h.ranUntil(reported.endMs()), h.stillRunningAtEnd()));
            }
        }
        final List<OverallocatedGpu> over = new ArrayList<>();
        byGpu.values().forEach(shares -> GpuOverlap.of(shares, judged).ifPresent(over::add));
        final long dueBy = reported.endMs() == Long.MIN_VALUE ? Long.MIN_VALUE : reported.endMs() - grace.toMillis();
        final List<UnappliedCommand> unapplied = new ArrayList<>();
        long awaited = 0;
        for (final NodeCommand c : commanded.all()) {
            final long issued = c.getCause().getTimestamp().toEpochMilli();
            if (!inPool(c.getPool()) || !judged.contains(issued) || reported.applied(c.getCommandId())) {
                continue;
            }
            if (issued > dueBy) {
                awaited++;
            } else {
                unapplied.add(new UnappliedCommand(c, commanded.placementOf(c)));
            }
        }
        over.sort(Comparator.comparingLong(OverallocatedGpu::worstAtMs).thenComparing(OverallocatedGpu::gpu));
        orphans.sort(Comparator.comparingLong(OrphanPart::atMs).thenComparing(OrphanPart::jobId)
                .thenComparing(o -> String.valueOf(o.placementId())).thenComparing(o -> String.valueOf(o.nodeId())));
        unapplied.sort(Comparator.comparingLong(UnappliedCommand::issuedAtMs)
                .thenComparing(u -> u.command().getCommandId()));
        return new RealityReport(true, null, over.size(), orphans.size(), unapplied.size(), first(over), first(orphans),
                first(unapplied), notes(commanded, judged, awaited, notJudged, dueBy));
    }

    private boolean inPool(final String p) {
        return pool == null || pool.equals(p);
    }

    private static <T> List<T> first(final List<T> all) {
        return all.subList(0, Math.min(KEPT, all.size()));
    }

    private List<String> notes(final Commanded commanded, final RealityWindow judged, final long awaited,
                               final long notJudged, final long dueBy) {
        final List<String> notes = new ArrayList<>();
        notes.add("reality: " + commanded.all().size() + " node commands and " + sink.events().size()
                + " job events read (all pools); judged from " + Moments.at(judged.fromMs()) + " to "
                + Moments.at(judged.toMs()) + (pool == null ? "" : " for pool " + pool));
        if (awaited > 0) {
            notes.add(awaited + " commands without an APPLIED event were issued in the last " + Moments.span(grace)
                    + " of the history (after " + Moments.at(dueBy) + "): not counted, the sink may not have answered yet");
        }
        if (!sink.commandsComplete()) {
            notes.add("the node-commands topic holds commands from " + Moments.at(sink.commandsCompleteFromMs())
                    + " on (retention): earlier moments are not judged, nor " + notJudged
                    + " events naming commands it does not hold");
        }
        if (sink.eventsCompleteFromMs() != Long.MIN_VALUE) {
            notes.add("the job-events topic holds events from " + Moments.at(sink.eventsCompleteFromMs())
                    + " on (retention): earlier moments are not judged");
        }
        return notes;
    }
}
