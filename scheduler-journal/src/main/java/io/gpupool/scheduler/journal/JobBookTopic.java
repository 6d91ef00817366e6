package io.gpupool.scheduler.journal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
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
 * request is there, because a replay cannot tell from the book which jobs are still live).
 */
public final class JobBookTopic {
    private static final int MAGIC = 0x47504a42; // "GPJB"
    private static final int VERSION = 1;

    private JobBookTopic() {
    }

    /**
     * The record key. Job ids have no '#', and chunk keys end in two numbers ({@code pool#slot#index}),
     * so a book key ({@code jobId#job#partition}) never equals a chunk key.
     */
    public static String key(final int partition, final String jobId) {
        return jobId + "#job#" + partition;
    }

    public static byte[] value(final String jobId, final byte[] record) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(record.length + jobId.length() + 16);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(jobId);
            out.write(record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Whether a record value of the snapshot topic is a job book record (not a snapshot chunk). */
    public static boolean isBookRecord(final byte[] value) {
        return value != null && value.length >= 4 && ByteBuffer.wrap(value).getInt(0) == MAGIC;
    }

    /**
     * The book records read from the snapshot topic, any order, and the book of a journal partition
     * as it was after a given offset. Memory grows with the job ids the history holds.
     */
    public static final class Log {
        /** Per journal partition: job id to record bytes, in job id order as the section needs. */
        private final Map<Integer, TreeMap<String, byte[]>> byPartition = new HashMap<>();

        /** Adds one book record value; a value that is not one is refused with the reason. */
        public void add(final byte[] value) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
                if (in.readInt() != MAGIC) {
                    throw new IllegalArgumentException("not a job book record");
                }
                final int version = in.readInt();
                if (version != VERSION) {
                    throw new IllegalArgumentException("job book record version " + version + " is not supported");
                }
                final String jobId = in.readUTF();
                final byte[] record = in.readAllBytes();
                final JobRecord r = JobRecord.fromBytes(record); // checks the record is whole
                final TreeMap<String, byte[]> book = byPartition.computeIfAbsent(r.partition(), p -> new TreeMap<>());
                final byte[] known = book.get(jobId);
                // the same record twice (not yet compacted) is one; the first submit of an id is its record
                if (known == null || JobRecord.offsetOf(known) > r.offset()) {
                    book.put(jobId, record);
                }
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("malformed job book record: " + e.getMessage(), e);
            }
        }

        /**
         * The job book section ({@link JournalApplier#restoreJobBook}) of {@code partition} after
         * journal entry {@code offset}: every job id taken at or before it, each with its request.
         */
        public byte[] section(final int partition, final long offset) {
            final TreeMap<String, byte[]> book = byPartition.getOrDefault(partition, new TreeMap<>());
            return JobBookSection.write(each -> book.forEach((id, record) -> {
                if (JobRecord.offsetOf(record) <= offset) {
                    each.accept(id, record);
                }
            }), id -> true);
        }
    }
}
