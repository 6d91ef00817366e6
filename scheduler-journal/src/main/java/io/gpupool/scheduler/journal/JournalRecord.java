package io.gpupool.scheduler.journal;

import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.JournalPosition;

/** One recorded journal entry with the position it has in the journal topic. */
public record JournalRecord(int partition, long offset, JournalEntry entry) {

    public JournalPosition position() {
        return new JournalPosition(partition, offset, entry.getTimestamp());
    }

    public long timestampMs() {
        return entry.getTimestamp().toEpochMilli();
    }

    /** A short label for reports: where it is and what it carried. */
    public String describe() {
        final Object p = entry.getPayload();
        return "journal " + partition + "@" + offset + " pool " + entry.getPool() + " at " + entry.getTimestamp() + ": "
                + (p == null ? "null" : p.getClass().getSimpleName() + " " + p);
    }
}
