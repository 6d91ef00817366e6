package io.gpupool.scheduler.journal;

/**
 * What a {@link KeyedJobBook} tells its owner as it changes: the placer publishes each change to the
 * snapshot topic ({@link JobBookTopic}), so that a replay from a snapshot rebuilds the book as it was.
 */
public interface BookChanges {
    BookChanges NONE = new BookChanges() {
    };

    /** A job id was taken. */
    default void taken(final String jobId, final int partition, final byte[] record) {
    }

    /** The job finished: its record now expires. */
    default void finished(final String jobId, final int partition, final byte[] record, final JobBook.Expiry expiry) {
    }

    /**
     * The finished job's record expired at journal entry {@code offset}; {@code pool} and {@code commandId}
     * are its expiry's pool and its submit's command id.
     */
    default void expired(final String jobId, final int partition, final long offset, final String pool,
                         final String commandId) {
    }
}
