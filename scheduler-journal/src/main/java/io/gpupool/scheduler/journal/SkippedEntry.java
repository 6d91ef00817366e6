package io.gpupool.scheduler.journal;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.JournalPosition;
import java.util.List;

/**
 * A journal entry the engine threw on. Applying an entry is all or nothing: the engine is rebuilt as it was
 * before the entry, and the entry counts as skipped. This class says what a skipped entry produces, for the
 * placer and for every replay alike, so that an audit skips it exactly as the placer did: a job submit gets a
 * REJECTED decision (code {@value #CODE}) so that its submitter learns why nothing happens; any other entry
 * produces nothing. The decision names only the error's class: its message may hold JVM-specific text, and
 * decisions must be the same bytes on every JVM.
 */
public final class SkippedEntry {
    public static final String CODE = "SCHEDULER_ERROR";

    private SkippedEntry() {
    }

    /** What the skipped entry produces (see the class comment); its {@link Applied#skipped()} names the error. */
    public static Applied outcome(final JournalEntry entry, final JournalPosition cause, final RuntimeException error) {
        final String why = error.getClass().getSimpleName();
        if (entry.getPayload() instanceof JobCommand c && c.getCommand() instanceof JobSubmit
                && JobRequestMapper.badJobId(c.getJobId()) == null) {
            final String jobId = c.getJobId();
            return Applied.skipped(List.of(DecisionMapper.rejection(entry.getPool(), jobId, CODE, "the scheduler failed on"
                    + " this request (" + why + ") and skipped it, leaving the pool as it was; the journal entry is"
                    + " dead-lettered for analysis", cause)), jobId, why);
        }
        return Applied.skipped(List.of(), null, why);
    }

    /** The entry and the error, for logs and the dead-letter record. */
    public static String describe(final JournalEntry entry, final JournalPosition cause, final Throwable error) {
        return "journal entry " + cause.getPartition() + "@" + cause.getOffset() + " of pool " + entry.getPool() + " ("
                + entry.getPayload().getClass().getSimpleName() + ") skipped: the engine threw " + error;
    }
}
