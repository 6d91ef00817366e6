package io.gpupool.scheduler.journal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * A pool's snapshot as the scheduler writes it to the snapshot topic (cut into
 * {@link SnapshotChunks}): the state after applying journal entry {@code partition@offset}
 * (inclusive), so a replay resumes at offset + 1. With the job book of the journal partition (which
 * job ids were taken, and the requests of live jobs) it is everything the placer decides from, so
 * that a replay from it gives the decisions and node commands the placer gave.
 *
 * <p>The value is a small binary frame, a magic number ("GPSB") and a version first, so a foreign
 * record is not taken for one:
 * <ul>
 *   <li>version 1 (older schedulers): pool, partition, offset, timestamp, engine bytes; no job book.
 *       Still read, so that listings work, but {@link #hasJobBook()} is false and an audit refuses to
 *       start from it (it could report false divergences for resubmitted job ids).</li>
 *   <li>version 2: the same, then the job book section (length and bytes,
 *       {@code JournalApplier.jobBookSnapshot}).</li>
 *   <li>version 3 (what the placer writes now): as version 1; the job book is on the same topic, a
 *       record per job id ({@link JobBookTopic}), and {@link #withJobBook} attaches it.</li>
 * </ul>
 * Other versions are refused with a message that names the versions this build reads.
 */
public final class EngineSnapshot {
    private static final int MAGIC = 0x47505342; // "GPSB"
    private static final int V1 = 1;
    private static final int V2 = 2;
    private static final int V3 = 3;

    private final String pool;
    private final int partition;
    private final long offset;
    private final long timestampMs;
    private final byte[] engine;
    private final int version;
    /** The job book section, built when asked for (format 3 builds it from the book records); null: none. */
    private final Supplier<byte[]> jobBook;

    private EngineSnapshot(final String pool, final int partition, final long offset, final long timestampMs,
                           final byte[] engine, final int version, final Supplier<byte[]> jobBook) {
        this.pool = pool;
        this.partition = partition;
        this.offset = offset;
        this.timestampMs = timestampMs;
        this.engine = engine;
        this.version = version;
        this.jobBook = jobBook;
    }

    /** A snapshot with its job book section inside (format 2), or none (format 1) when {@code jobBook} is null. */
    public EngineSnapshot(final String pool, final int partition, final long offset, final long timestampMs,
                          final byte[] engine, final byte[] jobBook) {
        this(pool, partition, offset, timestampMs, engine, jobBook == null ? V1 : V2,
                jobBook == null ? null : () -> jobBook);
    }

    /** The format-3 frame the placer publishes: the job book goes to the topic as {@link JobBookTopic} records. */
    public static byte[] frame(final String pool, final int partition, final long offset, final long timestampMs,
                               final byte[] engine) {
        return write(pool, partition, offset, timestampMs, engine, V3, null);
    }

    /**
     * This (format 3) snapshot with the job book of its journal partition from the book records read
     * off the snapshot topic: every job id taken up to the snapshot's offset. Other formats are returned
     * as they are.
     */
    public EngineSnapshot withJobBook(final JobBookTopic.Log book) {
        if (version != V3) {
            return this;
        }
        return new EngineSnapshot(pool, partition, offset, timestampMs, engine, V3,
                () -> book.section(partition, offset));
    }

    public String pool() {
        return pool;
    }

    public int partition() {
        return partition;
    }

    public long offset() {
        return offset;
    }

    public long timestampMs() {
        return timestampMs;
    }

    public byte[] engine() {
        return engine;
    }

    /** The job book section ({@code JournalApplier.restoreJobBook}); only when {@link #hasJobBook()}. */
    public byte[] jobBook() {
        if (jobBook == null) {
            throw new IllegalStateException(describe() + " has no job book");
        }
        return jobBook.get();
    }

    /** Whether the job book is known: inside the snapshot (format 2) or attached from the topic (format 3). */
    public boolean hasJobBook() {
        return jobBook != null;
    }

    /** The journal position and format in words, for reports and errors. */
    public String describe() {
        final String what = "engine snapshot of pool " + pool + " at journal " + partition + "@" + offset;
        if (hasJobBook()) {
            return what;
        }
        return what + (version == V1 ? " (format 1, without the job book)" : " (its job book records were not read)");
    }

    /** This snapshot's frame: format 2 with the job book inside, or format 3 without it. */
    public byte[] toBytes() {
        if (version == V1) {
            throw new IllegalStateException("a snapshot without its job book is not written any more");
        }
        return write(pool, partition, offset, timestampMs, engine, version, version == V2 ? jobBook() : null);
    }

    private static byte[] write(final String pool, final int partition, final long offset, final long timestampMs,
                                final byte[] engine, final int version, final byte[] book) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(engine.length
                + (book == null ? 0 : book.length) + 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(version);
            out.writeUTF(pool);
            out.writeInt(partition);
            out.writeLong(offset);
            out.writeLong(timestampMs);
            out.writeInt(engine.length);
            out.write(engine);
            if (book != null) {
                out.writeInt(book.length);
                out.write(book);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Whether a record of the snapshot topic is a whole frame rather than a chunk: what schedulers
     * wrote before snapshots were chunked (format 1 only).
     */
    public static boolean isWholeRecord(final byte[] value) {
        return value.length >= 4 && ByteBuffer.wrap(value).getInt(0) == MAGIC;
    }

    public static EngineSnapshot fromBytes(final byte[] b) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
            if (in.readInt() != MAGIC) {
                throw new IllegalArgumentException("not an engine snapshot record");
            }
            final int version = in.readInt();
            if (version != V1 && version != V2 && version != V3) {
                throw new IllegalArgumentException("engine snapshot record version " + version
                        + " is not supported (this gpupool reads versions 1 to 3): use the gpupool that wrote it");
            }
            final String pool = in.readUTF();
            final int partition = in.readInt();
            final long offset = in.readLong();
            final long ts = in.readLong();
            final byte[] engine = new byte[in.readInt()];
            in.readFully(engine);
            byte[] book = null;
            if (version == V2) {
                book = new byte[in.readInt()];
                in.readFully(book);
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException("engine snapshot record has " + in.available() + " bytes too many");
            }
            final byte[] section = book;
            return new EngineSnapshot(pool, partition, offset, ts, engine, version, section == null ? null : () -> section);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated engine snapshot record", e);
        }
    }
}
