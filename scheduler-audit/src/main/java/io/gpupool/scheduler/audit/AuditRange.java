package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.audit.reality.RealityWindow;
import io.gpupool.scheduler.journal.JournalRecord;
import java.time.Instant;

/**
 * Which journal entries an audit compares: from/to as offsets (inclusive) or times (epoch ms,
 * inclusive); {@code Long.MIN_VALUE}/{@code Long.MAX_VALUE} when open. Entries before the range are
 * still replayed (the engine needs them) but not compared; entries after it are not read.
 */
public record AuditRange(long fromOffset, long toOffset, long fromMs, long toMs) {
    public static final AuditRange ALL = new AuditRange(Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE);

    /** Parses a bound: digits are an offset, anything else an ISO-8601 instant. */
    public static AuditRange of(final String from, final String to) {
        long fo = Long.MIN_VALUE;
        long to2 = Long.MAX_VALUE;
        long fm = Long.MIN_VALUE;
        long tm = Long.MAX_VALUE;
        if (from != null) {
            if (from.matches("\\d+")) {
                fo = Long.parseLong(from);
            } else {
                fm = Instant.parse(from).toEpochMilli();
            }
        }
        if (to != null) {
            if (to.matches("\\d+")) {
                to2 = Long.parseLong(to);
            } else {
                tm = Instant.parse(to).toEpochMilli();
            }
        }
        return new AuditRange(fo, to2, fm, tm);
    }

    boolean before(final JournalRecord r) {
        return r.offset() < fromOffset || r.timestampMs() < fromMs;
    }

    boolean after(final JournalRecord r) {
        return r.offset() > toOffset || r.timestampMs() > toMs;
    }

    /**
     * The moments the reality check judges: times as given; an offset bound stands for the time of the
     * first (last) journal entry compared, since the sinks' reports carry times, not journal offsets.
     */
    RealityWindow realityWindow(final long firstComparedMs, final long lastComparedMs) {
        return new RealityWindow(Math.max(fromMs, fromOffset == Long.MIN_VALUE ? Long.MIN_VALUE : firstComparedMs),
                Math.min(toMs, toOffset == Long.MAX_VALUE ? Long.MAX_VALUE : lastComparedMs));
    }
}
