package io.gpupool.scheduler.stream;

import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.JobBook;
import io.gpupool.scheduler.journal.JobRecord;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A pool's decision histories that changed since its last snapshot, in memory ({@link DecisionHistory}'s form).
 * The history store is written only when the pool is snapshotted: a restore re-applies the tail after that
 * snapshot and the engine, being deterministic, decides the same again, so the decisions since then come back
 * here without having been stored. A job decided many times between two snapshots costs one store write
 * instead of a read and a write per decision.
 *
 * <p>The placer's stream thread writes; query threads read {@link #get} (values are never changed in place).
 */
public final class UnflushedHistory {
    private final Map<String, byte[]> changed = new ConcurrentHashMap<>();

    /** The job's history with {@code d} appended; {@code stored} gives what the store holds when this has nothing. */
    void append(final String jobId, final PlacementDecision d, final Function<String, byte[]> stored) {
        final byte[] before = changed.get(jobId);
        changed.put(jobId, DecisionHistory.append(before != null ? before : stored.apply(jobId), d));
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
        return written;
    }

    /**
     * What a restore feeds the decisions of the tail's entries to, which the engine decides again after the
     * snapshot: they are the histories' changes since it. Those of a job whose record has expired since (its
     * history was deleted then) are not brought back.
     */
    BiConsumer<Applied, JournalPosition> refill(final JobBook book, final Function<String, byte[]> stored) {
        return (applied, cause) -> {
            for (final PlacementDecision d : applied.decisions()) {
                final JobRecord then = book.asOf(d.getJobId(), cause.getOffset());
                final JobRecord now = book.get(d.getJobId());
                if (then == null || now != null && now.offset() == then.offset()) {
                    append(d.getJobId(), d, stored);
                }
            }
        };
    }

    int size() {
        return changed.size();
    }
}
