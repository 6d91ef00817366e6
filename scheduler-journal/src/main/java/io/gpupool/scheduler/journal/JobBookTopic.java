package io.gpupool.scheduler.journal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The job book on the snapshot topic: one record per job id, written by the placer when it first
 * takes the id (in the transaction of the decision it causes), keyed so that compaction keeps it.
 * An engine snapshot (format 3) no longer carries the book: a replay that starts from a snapshot at
 * journal offset O rebuilds the book of its partition from the records with an offset up to O.
 * Writing the book once per job instead of whole in every snapshot keeps the snapshot pause
 * independent of how many jobs the pool has ever seen (at 380,000 jobs it was 110 ms of a 190 ms pause).
 *
 * <p>Value: magic "GPJB", int version, UTF job id, then the {@link JobRecord} bytes (full: the
 * request is there, because a replay cannot tell from the book which jobs are still live). When the
 * job finishes the record is written again as version 2, with its {@link JobBook.Expiry} (long time,
 * long finished offset, UTF pool) before the record bytes; when it expires the key gets a tombstone
 * whose header {@link #EXPIRED_AT} holds the journal offset that expired it, so that compaction
 * removes the job and a reader before compaction still knows when it went.
 */
public final class JobBookTopic {
    /** Header of a book tombstone: the journal offset (8 bytes) of the entry at which the record expired. */
    public static final String EXPIRED_AT = "gpupool.book.expired-at";
    private static final int MAGIC = 0x47504a42; // "GPJB"
    private static final int TAKEN = 1;
    private static final int FINISHED = 2;
    private static final String KEY_INFIX = "#job#";

    private JobBookTopic() {
    }

    /**
     * The record key. Job ids have no '#', and chunk keys end in two numbers ({@code pool#slot#index}),
     * so a book key ({@code jobId#job#partition}) never equals a chunk key.
     */
    public static String key(final int partition, final String jobId) {
        return jobId + KEY_INFIX + partition;
    }

    public static byte[] value(final String jobId, final byte[] record) {
        return value(jobId, record, null);
    }

    /** The value of a finished job's record, with its expiry. */
    public static byte[] value(final String jobId, final byte[] record, final JobBook.Expiry expiry) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(record.length + jobId.length() + 48);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(expiry == null ? TAKEN : FINISHED);
            out.writeUTF(jobId);
            if (expiry != null) {
                out.writeLong(expiry.atMs());
                out.writeLong(expiry.finishedOffset());
                out.writeUTF(expiry.pool());
            }
            out.write(record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The {@link #EXPIRED_AT} header value of a tombstone. */
    public static byte[] expiredAt(final long offset) {
        return ByteBuffer.allocate(8).putLong(offset).array();
    }

    /** Whether a record value of the snapshot topic is a job book record (not a snapshot chunk). */
    public static boolean isBookRecord(final byte[] value) {
        return value != null && value.length >= 4 && ByteBuffer.wrap(value).getInt(0) == MAGIC;
    }

    /** What the book of a partition holds of one job id, as read from the topic. */
    private static final class Known {
        byte[] record;
        JobBook.Expiry expiry;
        long expiredAt = Long.MAX_VALUE;

        Known(final byte[] record) {
            this.record = record;
        }
    }

    /**
     * The book records read from the snapshot topic, in the order of each topic partition (a job id's
     * records are on one), and the book of a journal partition as it was after a given offset. Memory
     * grows with the job ids the topic still holds.
     */
    public static final class Log {
        /**
         * Per journal partition: job id to the generations of its record, oldest first (an id is taken
         * again after its record expired), in job id order as the section needs.
         */
        private final Map<Integer, TreeMap<String, List<Known>>> byPartition = new HashMap<>();

        /** Adds one book record value; a value that is not one is refused with the reason. */
        public void add(final byte[] value) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
                if (in.readInt() != MAGIC) {
                    throw new IllegalArgumentException("not a job book record");
                }
                final int version = in.readInt();
                if (version != TAKEN && version != FINISHED) {
                    throw new IllegalArgumentException("job book record version " + version + " is not supported");
                }
                final String jobId = in.readUTF();
                JobBook.Expiry expiry = null;
                if (version == FINISHED) {
                    final long at = in.readLong();
                    final long finishedOffset = in.readLong();
                    expiry = new JobBook.Expiry(in.readUTF(), at, finishedOffset);
                }
                final byte[] record = in.readAllBytes();
                final JobRecord r = JobRecord.fromBytes(record); // checks the record is whole
                final List<Known> generations = byPartition.computeIfAbsent(r.partition(), p -> new TreeMap<>())
                        .computeIfAbsent(jobId, id -> new ArrayList<>());
                Known known = generations.isEmpty() ? null : generations.get(generations.size() - 1);
                if (known == null || known.expiredAt != Long.MAX_VALUE && r.offset() > known.expiredAt) {
                    known = new Known(record); // the id taken (again, after its record expired)
                    generations.add(known);
                } else if (JobRecord.offsetOf(known.record) > r.offset()) {
                    known.record = record; // the first submit of an id is its record
                }
                // the same record twice (not yet compacted) is one; the finished one adds its expiry
                if (expiry != null && JobRecord.offsetOf(known.record) == r.offset()) {
                    known.expiry = expiry;
                }
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("malformed job book record: " + e.getMessage(), e);
            }
        }

        /** Adds a tombstone of the topic: {@code key} a book key, {@code expiredAt} its {@link #EXPIRED_AT} header. */
        public void expired(final String key, final byte[] expiredAt) {
            final int at = key.lastIndexOf(KEY_INFIX);
            if (at < 0 || expiredAt == null || expiredAt.length != 8) {
                return; // not a book key, or a tombstone from a compaction of other means: nothing known
            }
            final List<Known> generations = byPartition.getOrDefault(
                    Integer.parseInt(key.substring(at + KEY_INFIX.length())), new TreeMap<>()).get(key.substring(0, at));
            if (generations != null) {
                generations.get(generations.size() - 1).expiredAt = ByteBuffer.wrap(expiredAt).getLong();
            }
        }

        /**
         * The job book section ({@link JournalApplier#restoreJobBook}) of {@code partition} after
         * journal entry {@code offset}: every job id taken at or before it and not expired by then, each
         * with its request, and its expiry where it had finished.
         */
        public byte[] section(final int partition, final long offset) {
            final TreeMap<String, Known> book = new TreeMap<>();
            byPartition.getOrDefault(partition, new TreeMap<>()).forEach((id, generations) -> {
                for (final Known k : generations) {
                    if (JobRecord.offsetOf(k.record) <= offset && k.expiredAt > offset) {
                        book.put(id, k);
                    }
                }
            });
            return JobBookSection.write(each -> book.forEach((id, k) -> each.accept(id, k.record)), id -> true, id -> {
                final JobBook.Expiry e = book.get(id).expiry;
                return e != null && e.finishedOffset() <= offset ? e : null;
            });
        }
    }
}
