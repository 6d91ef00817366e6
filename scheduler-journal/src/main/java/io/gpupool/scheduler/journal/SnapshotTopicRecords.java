package io.gpupool.scheduler.journal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a reader of the snapshot topic collects, in any order: snapshot chunks, whole snapshot records
 * of schedulers from before the chunks (format 1), and job book records; then hands back the
 * snapshots, each with the job book of its journal partition as it was at the snapshot.
 */
public final class SnapshotTopicRecords {
    private final SnapshotChunks.Assembler chunks = new SnapshotChunks.Assembler();
    private final List<EngineSnapshot> whole = new ArrayList<>();
    private final JobBookTopic.Log book = new JobBookTopic.Log();

    /** Adds one record value; a tombstone is skipped, a value of no known kind is refused with the reason. */
    public void add(final byte[] value) {
        if (value == null) {
            return;
        }
        if (JobBookTopic.isBookRecord(value)) {
            book.add(value);
        } else if (EngineSnapshot.isWholeRecord(value)) {
            whole.add(EngineSnapshot.fromBytes(value));
        } else {
            chunks.add(value);
        }
    }

    /**
     * Adds a tombstone: of a job book key, the record expired at the journal offset {@code expiredAt} (its
     * {@link JobBookTopic#EXPIRED_AT} header); any other tombstone is skipped.
     */
    public void tombstone(final String key, final byte[] expiredAt) {
        book.expired(key, expiredAt);
    }

    /** Every complete snapshot (of one pool, or all when {@code pool} is null), per pool, oldest first. */
    public Map<String, List<EngineSnapshot>> snapshots(final String pool) {
        final Map<String, List<EngineSnapshot>> out = new TreeMap<>();
        for (final EngineSnapshot s : whole) {
            if (pool == null || pool.equals(s.pool())) {
                out.computeIfAbsent(s.pool(), k -> new ArrayList<>()).add(s);
            }
        }
        chunks.complete().forEach((p, frames) -> {
            if (pool == null || pool.equals(p)) {
                for (final byte[] frame : frames) {
                    out.computeIfAbsent(p, k -> new ArrayList<>()).add(EngineSnapshot.fromBytes(frame).withJobBook(book));
                }
            }
        });
        out.values().forEach(l -> l.sort(Comparator.comparingLong(EngineSnapshot::offset)));
        return out;
    }
}
