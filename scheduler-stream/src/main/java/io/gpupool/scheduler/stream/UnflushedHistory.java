package io.gpupool.scheduler.stream;

import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.JobBook;
import io.gpupool.scheduler.journal.JobRecord;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A pool's decision histories that changed and are not stored yet, in memory ({@link DecisionHistory}'s form).
 * A history is written to the store once {@link #FLUSH_AFTER_ENTRIES} of
 * the pool's entries have passed since it first changed (a job decided several times in that span costs one write),
 * a few per entry ({@link #flushDue}); the pool's snapshot writes the rest. A restore re-applies the entries after
 * that snapshot and the engine, being deterministic, decides the same again: those decisions come back here, except
 * those a stored history already holds (their cause is at or before its last one's, see {@link #refill}).
 *
 * <p>Writing them all at the snapshot instead stopped the placer for about half a second at 20,000-30,000 jobs
 * decided since (a spike in every decision's latency); spread over the entries, the snapshot writes at most those
 * of the last {@link #FLUSH_AFTER_ENTRIES} entries.
 *
 * <p>The placer's stream thread writes; query threads read {@link #get} (values are never changed in place).
 */
public final class UnflushedHistory {
    /** How many of the pool's entries a changed history waits before it is written. */
    static final int FLUSH_AFTER_ENTRIES = 2_000;
    /** At most this many histories are written per entry, so a burst of decisions is spread too. */
    static final int FLUSH_PER_ENTRY = 8;

    private final Map<String, byte[]> changed = new ConcurrentHashMap<>();
    /** Jobs in the order their history first changed since it was last written, with the entry count then. */
    private final ArrayDeque<Dirty> order = new ArrayDeque<>();
    private final int flushAfterEntries;
    private long entries;

    private record Dirty(String jobId, long sinceEntry) {
    }

    public UnflushedHistory() {
        this(FLUSH_AFTER_ENTRIES);
    }

    UnflushedHistory(final int flushAfterEntries) {
        this.flushAfterEntries = flushAfterEntries;
    }

    /** The job's history with {@code d} appended; {@code stored} gives what the store holds when this has nothing. */
    void append(final String jobId, final PlacementDecision d, final Function<String, byte[]> stored) {
        changed.put(jobId, DecisionHistory.append(changedOrStored(jobId, stored), d));
    }

    /** As {@link #append}, with the decision in Avro binary from {@code from} on (see {@link DecisionHistory#appendEncoded}). */
    void appendEncoded(final String jobId, final byte[] encoded, final int from, final Function<String, byte[]> stored) {
        changed.put(jobId, DecisionHistory.appendEncoded(changedOrStored(jobId, stored), encoded, from));
    }

    private byte[] changedOrStored(final String jobId, final Function<String, byte[]> stored) {
        final byte[] before = changed.get(jobId);
        if (before == null) {
            order.addLast(new Dirty(jobId, entries));
            return stored.apply(jobId);
        }
        return before;
    }

    /**
     * After each of the pool's entries (all its decisions appended): writes the histories that changed at least
     * {@link #FLUSH_AFTER_ENTRIES} entries ago, at most {@link #FLUSH_PER_ENTRY}. Returns how many were written.
     */
    int flushDue(final KeyValueStore<String, byte[]> store) {
        entries++;
        int written = 0;
        while (written < FLUSH_PER_ENTRY && !order.isEmpty() && order.peekFirst().sinceEntry() + flushAfterEntries <= entries) {
            final String jobId = order.pollFirst().jobId();
            final byte[] value = changed.get(jobId);
            if (value != null) { // else forgotten (expired) since
                store.put(jobId, value);
                changed.remove(jobId, value);
                written++;
            }
        }
        return written;
    }

    /** The job's history as changed since the snapshot, or null when unchanged (then the store's is current). */
    public byte[] get(final String jobId) {
        return changed.get(jobId);
    }

    void forget(final String jobId) {
        changed.remove(jobId);
    }

    /**
     * Writes every changed history to the store, in the transaction of the snapshot that covers them. Each is put
     * before it is dropped here, so a concurrent reader finds it in one place or the other.
     */
    int flushTo(final KeyValueStore<String, byte[]> store) {
        int written = 0;
        for (final Map.Entry<String, byte[]> e : changed.entrySet()) {
            store.put(e.getKey(), e.getValue());
            changed.remove(e.getKey(), e.getValue());
            written++;
        }
        order.clear();
        return written;
    }

    /**
     * What a restore feeds the decisions of the entries re-applied after the snapshot to, which the engine decides
     * again: they are the histories' changes since it. Those a stored history already holds are not added again: a
     * history is written between entries, so it holds every decision caused at or before its last one's cause (all
     * of a job's decisions come from its pool's journal partition, whose offsets order them). Those of a job whose
     * record has expired since (its history was deleted then) are not brought back.
     */
    BiConsumer<Applied, JournalPosition> refill(final JobBook book, final Function<String, byte[]> stored) {
        final Map<String, Long> storedUpTo = new HashMap<>(); // per job, read once: the restore writes no history
        return (applied, cause) -> {
            for (final PlacementDecision d : applied.decisions()) {
                final JobRecord then = book.asOf(d.getJobId(), cause.getOffset());
                final JobRecord now = book.get(d.getJobId());
                if ((then == null || now != null && now.offset() == then.offset())
                        && d.getCause().getOffset() > storedUpTo.computeIfAbsent(d.getJobId(),
                                id -> lastCauseOffset(stored.apply(id)))) {
                    append(d.getJobId(), d, stored);
                }
            }
        };
    }

    private static long lastCauseOffset(final byte[] history) {
        final List<PlacementDecision> h = DecisionHistory.read(history);
        return h.isEmpty() ? Long.MIN_VALUE : h.get(h.size() - 1).getCause().getOffset();
    }

    int size() {
        return changed.size();
    }
}
