package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.NodeCommand;
import java.util.ArrayList;
import java.util.List;

/**
 * What the sinks reported about one part, each fact with its time and its place in the check's order
 * (occurredAt, then topic position): "after" is a matter of that order, "how long" of time.
 *
 * <p>ALLOCATED runs from the APPLIED of its ALLOCATE to whichever comes first of the APPLIED of a
 * RELEASE/EVICT of it and its own end (COMPLETED, FAILED, EVICTED, RELEASED). RUNNING runs from STARTED
 * to its first end after that; without one, to the end of the history: a sink reports every part's end,
 * so a part whose stop was applied but never reported gone may still run (a stop that failed). Only for
 * a part of a scheduler from before placement ids (its ALLOCATE names none), whose sink reported nothing
 * when a RELEASE stopped a running part, does the first stop APPLIED after STARTED end the run. An end stamped before STARTED is the sink's threads racing (a stop that wins against the
 * start it interrupts), not a part running on: the run then lasts no time.
 */
final class PartHistory {
    /** One reported fact: when (epoch ms), where in the check's order, and what (for reports). */
    record Fact(long atMs, long seq, String what) {
    }

    private final PartKey key;
    private final NodeCommand allocate;
    /** From before placement ids and RELEASED events: a stop's APPLIED stands for the part's end. */
    private final boolean legacySink;
    private Fact allocated;
    private Fact started;
    private final List<Fact> stops = new ArrayList<>();
    private final List<Fact> ends = new ArrayList<>();

    PartHistory(final PartKey key, final NodeCommand allocate) {
        this.key = key;
        this.allocate = allocate;
        this.legacySink = allocate.getPlacementId() == null;
    }

    PartKey key() {
        return key;
    }

    NodeCommand allocate() {
        return allocate;
    }

    void allocated(final Fact f) {
        allocated = allocated == null ? f : allocated;
    }

    /** The APPLIED of a RELEASE or EVICT of this part. */
    void stopApplied(final Fact f) {
        stops.add(f);
    }

    /** Only the first STARTED counts: a second one is a resend of the same fact. */
    void started(final Fact f) {
        started = started == null ? f : started;
    }

    void ended(final Fact f) {
        ends.add(f);
    }

    Fact allocatedFrom() {
        return allocated;
    }

    Fact started() {
        return started;
    }

    /** What ended the allocation first (a stop's APPLIED or the part's own end), or null while it lasts. */
    Fact allocationEnd() {
        Fact first = null;
        for (final Fact f : stops) {
            first = first == null || f.seq() < first.seq() ? f : first;
        }
        for (final Fact f : ends) {
            first = first == null || f.seq() < first.seq() ? f : first;
        }
        return first;
    }

    /** STARTED after a stop of it was applied, and the sink never reported that the part ended. */
    boolean ranAfterAllocationEnded() {
        return started != null && ends.isEmpty() && stops.stream().anyMatch(s -> s.seq() < started.seq());
    }

    /** Whether it ran at all. */
    boolean ran() {
        return started != null;
    }

    /** When the run ended, or {@code historyEndMs} when it had not by then. */
    long ranUntil(final long historyEndMs) {
        final Fact end = firstAfterStart(ends);
        if (end != null) {
            return end.atMs();
        }
        if (!ends.isEmpty()) {
            return started.atMs();
        }
        final Fact stop = legacySink ? firstAfterStart(stops) : null;
        return stop != null ? stop.atMs() : Math.max(historyEndMs, started.atMs());
    }

    /** Whether the run lasts to the end of the history (no end; for a legacy sink, no stop after STARTED either). */
    boolean stillRunningAtEnd() {
        return ends.isEmpty() && (!legacySink || firstAfterStart(stops) == null);
    }

    private Fact firstAfterStart(final List<Fact> facts) {
        Fact first = null;
        for (final Fact f : facts) {
            if (f.seq() > started.seq() && (first == null || f.seq() < first.seq())) {
                first = f;
            }
        }
        return first;
    }
}
