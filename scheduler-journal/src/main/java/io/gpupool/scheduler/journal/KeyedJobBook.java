package io.gpupool.scheduler.journal;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The job book over one sorted {@link BookMap}: a {@link BookedJob} per job id under the id itself (the
 * record, and its expiry once the job finished), and keys that start with '#' (job ids have none):
 * <ul>
 *   <li>{@code #expiry#LEN:POOL#TIME#JOB}: the expiry index of a pool, in stream time order (TIME
 *       zero-padded to 19 digits, the pool length-prefixed so that no pool's range holds another's), so
 *       that expiring costs what expires, never a scan of the book;</li>
 *   <li>only where {@code keepExpired} (the placer), for {@link #asOf} while a restore may still re-apply an
 *       entry from before the expiry: an expired job stays under its id, marked expired with the journal
 *       offset that expired it, and {@code #purgeid#OFFSET#JOB} says when {@link #purgeExpiredBefore} may
 *       drop it. An id taken again before that moves it to {@code #expired#JOB} (the offset, then the
 *       record), with {@code #purge#OFFSET#JOB} instead;</li>
 *   <li>{@code #finished#JOB}: a finished job's expiry in stores from before the {@link BookedJob} form
 *       (whose values are bare records); read for those records, never written.</li>
 * </ul>
 * An expiry thus rewrites the job's key and deletes its index entry (and adds the purge key) rather than
 * deleting the record, the finished key and the index entry and writing the expired copy: three writes
 * instead of five, and one read instead of two.
 */
public final class KeyedJobBook implements JobBook {
    private static final String FINISHED = "#finished#";
    private static final String EXPIRY = "#expiry#";
    private static final String EXPIRED = "#expired#";
    private static final String PURGE = "#purge#";
    private static final String PURGE_IN_PLACE = "#purgeid#";
    /** Above every job id character (JobRequestMapper.badJobId), so it closes a range of keys ending in a job id. */
    private static final String AFTER_IDS = "~";

    private final BookMap map;
    private final BookChanges changes;
    private final boolean keepExpired;
    /**
     * Per pool, the earliest expiry time in its index (MAX_VALUE: none), found lazily: not state, only
     * what spares a range query per journal entry (one that would also walk the deleted keys below it).
     */
    private final Map<String, Long> nextDue = new HashMap<>();

    public KeyedJobBook(final BookMap map, final BookChanges changes, final boolean keepExpired) {
        this.map = map;
        this.changes = changes;
        this.keepExpired = keepExpired;
    }

    /** Whether a key of the map is one of the book's own (retention), not a job id's record. */
    public static boolean isBookKey(final String key) {
        return key.startsWith("#");
    }

    @Override
    public JobRecord get(final String jobId) {
        final BookedJob b = booked(jobId);
        return b == null || b.expired() ? null : b.jobRecord();
    }

    /** What the book keeps under the id (the placer's reads of it are cached), or null. */
    private BookedJob booked(final String jobId) {
        final byte[] b = map.get(jobId);
        return b == null ? null : BookedJob.of(b);
    }

    @Override
    public void put(final String jobId, final JobRecord record) {
        final BookedJob before = booked(jobId); // the caller has just read it: a cached read in the placer
        JobBook.Expiry kept = null;
        if (before != null && before.expired()) {
            keepApart(jobId, before); // the id taken again while its expired record is kept for a restore
        } else if (before != null) {
            kept = expiryOf(jobId, before); // a record replaced (a slim one filled in)
        }
        final byte[] bytes = record.toBytes();
        final BookedJob now = BookedJob.taken(bytes);
        map.put(jobId, (kept == null ? now : now.finished(kept)).toBytes());
        if (kept != null && before.legacy()) {
            map.delete(FINISHED + jobId); // its expiry is in the value now
        }
        changes.taken(jobId, record.partition(), bytes);
    }

    /** Moves an expired record out of its id's way, under {@code #expired#}, with the purge key to match. */
    private void keepApart(final String jobId, final BookedJob expired) {
        final long offset = expired.expiredOffset();
        map.put(EXPIRED + jobId, ByteBuffer.allocate(8 + expired.record().length).putLong(offset)
                .put(expired.record()).array());
        map.delete(PURGE_IN_PLACE + pad(offset) + "#" + jobId);
        map.put(PURGE + pad(offset) + "#" + jobId, new byte[0]);
    }

    @Override
    public void forEachInOrder(final BiConsumer<String, byte[]> each) {
        map.forEach((k, v) -> {
            if (!isBookKey(k)) {
                final BookedJob b = BookedJob.of(v);
                if (!b.expired()) {
                    each.accept(k, b.record());
                }
            }
        });
    }

    @Override
    public Expiry expiry(final String jobId) {
        final BookedJob b = booked(jobId);
        if (b == null || b.expired()) {
            return null;
        }
        return expiryOf(jobId, b);
    }

    /** The expiry of what the book keeps under the id: in its value, or for a bare record under its finished key. */
    private Expiry expiryOf(final String jobId, final BookedJob b) {
        return b.legacy() ? legacyExpiry(jobId) : b.expiry();
    }

    /** The expiry of a bare record, from the finished key the book wrote before the {@link BookedJob} form. */
    private Expiry legacyExpiry(final String jobId) {
        final byte[] b = map.get(FINISHED + jobId);
        if (b == null) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
            final long at = in.readLong();
            final long offset = in.readLong();
            return new Expiry(in.readUTF(), at, offset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void finished(final String jobId, final Expiry expiry) {
        final BookedJob b = booked(jobId);
        if (b == null || b.expired()) {
            return;
        }
        // slim: a job no longer live causes no node command again, so its request is not needed (the snapshot
        // topic's record below keeps it, for an audit from a snapshot taken while the job was live)
        map.put(jobId, b.slim().finished(expiry).toBytes());
        map.put(indexKey(expiry.pool(), expiry.atMs(), jobId), new byte[0]);
        nextDue.computeIfPresent(expiry.pool(), (p, t) -> Math.min(t, expiry.atMs()));
        changes.finished(jobId, JobRecord.partitionOf(b.record()), b.record(), expiry);
    }

    @Override
    public List<String> due(final String pool, final long nowMs) {
        final long first = nextDue.computeIfAbsent(pool, p -> firstExpiry(p, 0));
        if (nowMs < first) {
            return List.of();
        }
        final List<String> ids = new ArrayList<>();
        for (final String k : map.keys(indexKey(pool, first, ""), indexKey(pool, nowMs, AFTER_IDS))) {
            ids.add(k.substring(k.lastIndexOf('#') + 1));
        }
        nextDue.put(pool, nowMs == Long.MAX_VALUE ? Long.MAX_VALUE : firstExpiry(pool, nowMs + 1));
        return ids;
    }

    /** The earliest expiry time of the pool's index at or after {@code fromMs}; MAX_VALUE when there is none. */
    private long firstExpiry(final String pool, final long fromMs) {
        final String k = map.firstKey(indexKey(pool, fromMs, ""), indexKey(pool, Long.MAX_VALUE, AFTER_IDS));
        if (k == null) {
            return Long.MAX_VALUE;
        }
        final int time = indexKey(pool, 0, "").length() - 20; // the 19 digits before the '#' of the job id
        return Long.parseLong(k.substring(time, time + 19));
    }

    @Override
    public void expire(final String jobId, final long offset) {
        final BookedJob b = booked(jobId);
        if (b == null || b.expired()) {
            return;
        }
        final Expiry e = expiryOf(jobId, b);
        if (e == null) {
            return;
        }
        map.delete(indexKey(e.pool(), e.atMs(), jobId));
        if (b.legacy()) {
            map.delete(FINISHED + jobId);
        }
        if (keepExpired) {
            map.put(jobId, b.slim().finished(e).expiredAt(offset).toBytes());
            map.put(PURGE_IN_PLACE + pad(offset) + "#" + jobId, new byte[0]);
        } else {
            map.delete(jobId);
        }
        changes.expired(jobId, JobRecord.partitionOf(b.record()), offset, e.pool(), b.jobRecord().commandId());
    }

    @Override
    public JobRecord asOf(final String jobId, final long offset) {
        final BookedJob now = booked(jobId);
        if (now != null) {
            final JobRecord r = now.jobRecord();
            if (r.offset() <= offset && (!now.expired() || offset < now.expiredOffset())) {
                return r;
            }
        }
        final byte[] gone = map.get(EXPIRED + jobId);
        if (gone == null) {
            return null;
        }
        final long expiredAt = ByteBuffer.wrap(gone).getLong();
        final JobRecord then = JobRecord.fromBytes(Arrays.copyOfRange(gone, 8, gone.length));
        return then.offset() <= offset && offset < expiredAt ? then : null;
    }

    /**
     * Drops the expired records kept for {@link #asOf} that expired before {@code offset}: once no pool
     * of the partition has a journal entry before it left to re-apply, no restore can ask for them.
     */
    public void purgeExpiredBefore(final long offset) {
        if (offset <= 0) {
            return;
        }
        for (final String k : purgeKeys(PURGE_IN_PLACE, offset)) {
            final String jobId = k.substring(k.lastIndexOf('#') + 1);
            final BookedJob b = booked(jobId);
            // taken again since: keepApart moved the expired record and its purge key
            if (b != null && b.expired() && b.expiredOffset() < offset) {
                map.delete(jobId);
            }
            map.delete(k);
        }
        for (final String k : purgeKeys(PURGE, offset)) {
            final String jobId = k.substring(k.lastIndexOf('#') + 1);
            final byte[] gone = map.get(EXPIRED + jobId);
            // a later expiry of the same id replaced it: that one has its own purge key
            if (gone != null && ByteBuffer.wrap(gone).getLong() < offset) {
                map.delete(EXPIRED + jobId);
            }
            map.delete(k);
        }
    }

    /** The purge keys under {@code prefix} of records expired before {@code offset}. */
    private List<String> purgeKeys(final String prefix, final long offset) {
        return map.keys(prefix + pad(0) + "#", prefix + pad(offset - 1) + "#" + AFTER_IDS);
    }

    private static String indexKey(final String pool, final long atMs, final String jobId) {
        return EXPIRY + pool.length() + ":" + pool + "#" + pad(atMs) + "#" + jobId;
    }

    private static String pad(final long v) {
        final String s = Long.toString(v);
        return "0".repeat(19 - s.length()) + s;
    }
}
