package io.gpupool.bench.pipeline;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The rate at which a backlog comes out of an app (the scheduler's decisions, the pass-through's copies),
 * from the first output to the last, over the whole backlog: start-up and rebalance are not the ceiling's
 * business, and a figure from part of the backlog would not be one. Past a deadline that grows with the
 * backlog it fails instead of printing.
 */
final class WholeBacklog {
    private final String what;
    private final long records;
    private final PrintStream progress;
    private final long started = System.currentTimeMillis();
    private final long deadline;
    private long count;
    private long firstBatch;
    private long first;
    private long last;
    private long nextReport = started + 5_000;

    WholeBacklog(final String what, final long records, final PrintStream progress) {
        this.what = what;
        this.records = records;
        this.progress = progress;
        // a minute to start, then at least 500 records/s: far below either app's ceiling
        this.deadline = started + 60_000 + records * 2;
    }

    /** {@code n} more records out (0 when a poll found none). */
    void add(final long n) {
        final long now = System.currentTimeMillis();
        if (n > 0) {
            if (first == 0) {
                first = now;
                firstBatch = n;
            }
            last = now;
            count += n;
        }
        if (now >= nextReport) {
            nextReport += 5_000;
            progress.printf("bench: %s t=%ds out=%d of %d%n", what, (now - started) / 1000, count, records);
        }
        if (count < records && now > deadline) {
            throw new IllegalStateException(what + ": " + count + " of " + records + " records out after "
                    + (now - started) / 1000 + " s; no figure from a partial backlog");
        }
    }

    boolean done() {
        return count >= records;
    }

    /** Records per second after the first output: the first poll's records came at no measured cost. */
    double perSecond() {
        final double secs = Math.max(0.001, (last - first) / 1000.0);
        return (count - firstBatch) / secs;
    }

    /** A rate as the bench prints it: whole records per second. */
    static String format(final double perSecond) {
        return String.format(Locale.ROOT, "%.0f", perSecond);
    }
}
