package io.gpupool.scheduler.journal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
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
 * The job book over one sorted {@link BookMap}: a record per job id under the id itself, and the
 * retention of finished jobs under keys that start with '#' (job ids have none):
 * <ul>
 *   <li>{@code #finished#JOB}: when the finished job's record expires ({@link JobBook.Expiry});</li>
 *   <li>{@code #expiry#LEN:POOL#TIME#JOB}: the expiry index of a pool, in stream time order (TIME
 *       zero-padded to 19 digits, the pool length-prefixed so that no pool's range holds another's), so
 *       that expiring costs what expires, never a scan of the book;</li>
 *   <li>{@code #expired#JOB} and {@code #purge#OFFSET#JOB}: only where {@code keepExpired} (the placer),
 *       an expired record with the journal offset that expired it, for {@link #asOf} while a restore may
 *       still re-apply an entry from before that offset; {@link #purgeExpiredBefore} drops them.</li>
 * </ul>
 */
public final class KeyedJobBook implements JobBook {
    private static final String FINISHED = "#finished#";
    private static final String EXPIRY = "#expiry#";
    private static final String EXPIRED = "#expired#";
    private static final String PURGE = "#purge#";
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
        final byte[] b = map.get(jobId);
        return b == null ? null : JobRecord.fromBytes(b);
    }

    @Override
    public void put(final String jobId, final JobRecord record) {
        final boolean newId = map.get(jobId) == null; // the caller has just read it: a cached read in the placer
        final byte[] bytes = record.toBytes();
        map.put(jobId, bytes);
        if (newId) {
            // A job's finished key goes with its record (expire deletes both; finished writes none without a record),
            // so a new id has none, and the check that the job has not finished yet (JobRetention) reads no store.
            map.noValue(FINISHED + jobId);
        }
        changes.taken(jobId, record.partition(), bytes);
    }

    @Override
    public void forEachInOrder(final BiConsumer<String, byte[]> each) {
        map.forEach((k, v) -> {
            if (!isBookKey(k)) {
                each.accept(k, v);
            }
        });
    }

    @Override
    public Expiry expiry(final String jobId) {
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
        final byte[] record = map.get(jobId);
        if (record == null) {
            return;
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(expiry.atMs());
            out.writeLong(expiry.finishedOffset());
            out.writeUTF(expiry.pool());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        map.put(FINISHED + jobId, bytes.toByteArray());
        map.put(indexKey(expiry.pool(), expiry.atMs(), jobId), new byte[0]);
        nextDue.computeIfPresent(expiry.pool(), (p, t) -> Math.min(t, expiry.atMs()));
        changes.finished(jobId, JobRecord.partitionOf(record), record, expiry);
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
        final Expiry e = expiry(jobId);
        final byte[] record = map.get(jobId);
        if (e == null || record == null) {
            return;
        }
        map.delete(indexKey(e.pool(), e.atMs(), jobId));
        map.delete(FINISHED + jobId);
        map.delete(jobId);
        if (keepExpired) {
            map.put(EXPIRED + jobId, ByteBuffer.allocate(8 + record.length).putLong(offset).put(record).array());
            map.put(PURGE + pad(offset) + "#" + jobId, new byte[0]);
        }
        changes.expired(jobId, JobRecord.partitionOf(record), offset, e.pool(), JobRecord.fromBytes(record).commandId());
    }

    @Override
    public JobRecord asOf(final String jobId, final long offset) {
        final JobRecord now = get(jobId);
        if (now != null && now.offset() <= offset) {
            return now;
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
        for (final String k : map.keys(PURGE + pad(0) + "#", PURGE + pad(offset - 1) + "#" + AFTER_IDS)) {
            final String jobId = k.substring(k.lastIndexOf('#') + 1);
            final byte[] gone = map.get(EXPIRED + jobId);
            // a later expiry of the same id replaced it: that one has its own purge key
            if (gone != null && ByteBuffer.wrap(gone).getLong() < offset) {
                map.delete(EXPIRED + jobId);
            }
            map.delete(k);
        }
    }

    private static String indexKey(final String pool, final long atMs, final String jobId) {
        return EXPIRY + pool.length() + ":" + pool + "#" + pad(atMs) + "#" + jobId;
    }

    private static String pad(final long v) {
        final String s = Long.toString(v);
        return "0".repeat(19 - s.length()) + s;
    }
}
