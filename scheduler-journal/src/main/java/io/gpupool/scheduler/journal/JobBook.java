package io.gpupool.scheduler.journal;

import java.util.List;
import java.util.function.BiConsumer;

/**
 * Where the placer keeps {@link JobRecord}s: a state store in the application, a map in a replay.
 * One book per journal partition (a placer task reads one partition), shared by the pools on it.
 *
 * <p>A finished job's record is kept for its pool's {@code finishedJobRetentionMs} of stream time
 * ({@link JobRetention}), then expires: its id may be taken again.
 */
public interface JobBook {
    JobRecord get(String jobId);

    void put(String jobId, JobRecord record);

    /** Every record as {@link JobRecord#toBytes()} bytes, in job id order (UTF-8 byte order). */
    void forEachInOrder(BiConsumer<String, byte[]> each);

    /** When the finished job's record expires, or null while its job is not finished (or has no record). */
    Expiry expiry(String jobId);

    /** Marks the job finished: its record expires at {@code expiry.atMs()} of its pool's stream time. */
    void finished(String jobId, Expiry expiry);

    /** The finished jobs of {@code pool} whose records expire at or before {@code nowMs}, in expiry order. */
    List<String> due(String pool, long nowMs);

    /** Forgets the job's record: its id may be taken again. {@code offset}: the journal entry that expired it. */
    void expire(String jobId, long offset);

    /**
     * The record of the id as the journal entry at {@code offset} found it when it was first applied: a
     * restore re-applies entries to a book that is already past them (taken later, or since expired).
     */
    JobRecord asOf(String jobId, long offset);

    /** A book in memory (offline replay and tests). */
    static JobBook inMemory() {
        return new KeyedJobBook(BookMap.inMemory(), BookChanges.NONE, false);
    }

    /**
     * When a finished job's record expires.
     *
     * @param pool           the pool the job finished in (its stream time counts)
     * @param atMs           the pool's stream time at which the record goes
     * @param finishedOffset the journal entry at which the job finished
     */
    record Expiry(String pool, long atMs, long finishedOffset) {
    }
}
