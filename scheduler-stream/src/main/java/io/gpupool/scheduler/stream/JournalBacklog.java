package io.gpupool.scheduler.stream;

import io.gpupool.avro.ShedSubmit;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How many journal entries the placer has not applied yet, per journal partition, as last measured
 * ({@link #measured}: the scheduler measures it every {@code 200 ms} from the journal's end offsets and its
 * own committed offsets, so every instance sees every partition), and the limit above which stage 1 sheds
 * new job submits instead of journaling them for the placer ({@link #shedding}).
 *
 * <p>Why shed, and why there: the journal is applied in its one order, so when routing runs ahead of the
 * placer every entry waits behind the backlog, a job's COMPLETED report included; ended jobs then hold their
 * GPUs, the pool fills, and every request costs a QUEUED decision more. A backlog over the limit says the
 * placer cannot keep up: a submit that would join it is answered at once (REJECTED OVERLOADED, its id left
 * free) rather than by silent lag, while cancels and job events always pass. A measurement older than
 * {@link #STALE_MS} counts as none: the scheduler never sheds on what it does not know.
 */
public final class JournalBacklog {
    /** A measurement older than this is not acted on. */
    static final long STALE_MS = 2_000;
    /**
     * The default limit: 10,000 unapplied entries, 1-3 s of placer work on a 2-core machine under load, ten times
     * the most seen at a rate the scheduler holds. A restart finds fewer waiting at any ordinary rate (the entries a
     * restore re-applies are below the committed offset and do not count); a fleet's first telemetry (a fact per
     * GPU) can pass it for a few seconds.
     */
    public static final long DEFAULT_LIMIT = 10_000;
    /**
     * Over this many unapplied entries on a partition the placer is behind ({@link #behind}). At a rate it holds, the
     * measured backlog is what the time between commits leaves unapplied (the committed offset moves at commits):
     * 500-2,000 at 3,000 requests/s on the 2-core bench machine. The commits every {@code commit.interval.ms} (100
     * ms) of a placer behind leave 1,000 at 10,000 entries a second, so they would keep it "behind" by themselves
     * only at 50,000 a second.
     */
    public static final long BEHIND_ENTRIES = 5_000;

    private record Measured(long[] entries, long atMs) {
    }

    private final long limit;
    private final LongSupplier clockMs;
    private volatile Measured last;

    /** @param limit entries over which submits are shed; 0 never sheds */
    public JournalBacklog(final long limit, final LongSupplier clockMs) {
        if (limit < 0) {
            throw new IllegalArgumentException("the journal backlog limit must be 0 (never shed) or more, not " + limit);
        }
        this.limit = limit;
        this.clockMs = clockMs;
    }

    /** A new measurement: unapplied entries by journal partition (every partition of the journal). */
    public void measured(final Map<Integer, Long> byPartition) {
        final long[] entries = new long[byPartition.size()];
        byPartition.forEach((p, n) -> {
            if (p >= 0 && p < entries.length) {
                entries[p] = Math.max(0, n);
            }
        });
        last = new Measured(entries, clockMs.getAsLong());
    }

    /** Unapplied entries on a partition as last measured; -1 when not known (never or too long ago measured). */
    public long entries(final int partition) {
        final Measured m = fresh();
        return m == null || partition < 0 || partition >= m.entries.length ? -1 : m.entries[partition];
    }

    /**
     * Whether the placer of some partition is behind by more than {@link #BEHIND_ENTRIES}, as last measured (false
     * when not known): then a decision waits for the backlog, and the stream threads ask for no early commits
     * ({@link CommitCadence}). Any partition, as the measurement does not say which placers run on this instance: one
     * whose own placers keep up also commits less often while another's is behind, its decisions up to {@code
     * commit.interval.ms} later.
     */
    public boolean behind() {
        final Measured m = fresh();
        if (m == null) {
            return false;
        }
        for (final long entries : m.entries) {
            if (entries > BEHIND_ENTRIES) {
                return true;
            }
        }
        return false;
    }

    /** The partitions last measured, 0 when none. */
    public int partitions() {
        final Measured m = fresh();
        return m == null ? 0 : m.entries.length;
    }

    /**
     * Whether a new submit for this pool is shed now, and with what evidence: null to journal it for the placer.
     * A pool's journal partition is its key's, as Java's default partitioner puts it (the journal sink sets none).
     */
    ShedSubmit shedding(final String pool) {
        if (limit == 0) {
            return null;
        }
        final Measured m = fresh();
        if (m == null || m.entries.length == 0) {
            return null;
        }
        final int partition = ByJobId.partition(pool.getBytes(StandardCharsets.UTF_8), m.entries.length);
        final long backlog = m.entries[partition];
        return backlog > limit ? new ShedSubmit(partition, backlog, limit) : null;
    }

    private Measured fresh() {
        final Measured m = last;
        return m == null || clockMs.getAsLong() - m.atMs > STALE_MS ? null : m;
    }
}
