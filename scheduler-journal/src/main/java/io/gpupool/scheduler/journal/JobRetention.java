package io.gpupool.scheduler.journal;

import io.gpupool.avro.JournalPosition;
import io.gpupool.scheduler.core.PoolEngine;

/**
 * How long a finished job's record stays in the {@link JobBook}: its pool's
 * {@code finishedJobRetentionMs} of the pool's stream time (journal time, never the wall clock) after
 * the journal entry at which the job finished; then it expires and the job id may be used again. A
 * function of the journal and the engine configuration only, so the placer, its restore and every
 * replay expire the same records at the same entries, and a resubmit is DUPLICATE_JOB in all of them
 * or in none.
 */
final class JobRetention {
    private final JobBook book;

    JobRetention(final JobBook book) {
        this.book = book;
    }

    /**
     * Before an entry of {@code pool} is applied: expires the records due by the stream time the entry
     * brings the pool to, so that a resubmit at the very time a record expires already finds the id free.
     */
    void expireDue(final String pool, final PoolEngine engine, final long entryMs, final JournalPosition cause) {
        for (final String jobId : book.due(pool, Math.max(engine.nowMs(), entryMs))) {
            book.expire(jobId, cause.getOffset());
        }
    }

    /** After an entry: a job with a record that is no longer live in its engine finished at this entry. */
    void ended(final String pool, final PoolEngine engine, final String jobId, final JournalPosition cause) {
        final long retention = engine.config().finishedJobRetentionMs();
        if (retention == 0 || engine.isLive(jobId) || book.expiry(jobId) != null) {
            return;
        }
        final long now = engine.nowMs();
        final long at = Long.MAX_VALUE - now < retention ? Long.MAX_VALUE : now + retention;
        book.finished(jobId, new JobBook.Expiry(pool, Math.max(0, at), cause.getOffset()));
    }
}
