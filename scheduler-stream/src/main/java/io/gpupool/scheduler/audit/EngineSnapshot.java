package io.gpupool.scheduler.audit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * A pool's snapshot as the scheduler writes it to the snapshot topic (cut into
 * {@link SnapshotChunks}): the state after applying journal entry {@code partition@offset}
 * (inclusive), so a replay resumes at offset + 1. It holds everything the placer decides from: the
 * engine ({@code PoolEngine.snapshot()}) and the job book of the journal partition
 * ({@code JournalApplier.jobBookSnapshot}: which job ids were taken, and the requests of live jobs),
 * so that a replay from it gives the decisions and node commands the placer gave.
 *
 * <p>The value is a small binary frame, a magic number ("GPSB") and a version first, so a foreign
 * record is not taken for one:
 * <ul>
 *   <li>version 1 (older schedulers): pool, partition, offset, timestamp, engine bytes; no job book.
 *       Still read, so that listings work, but {@link #hasJobBook()} is false and an audit refuses to
 *       start from it (it could report false divergences for resubmitted job ids).</li>
 *   <li>version 2: the same, then the job book section (length and bytes).</li>
 * </ul>
 * Other versions are refused with a message that names the versions this build reads.
 */
public record EngineSnapshot(String pool, int partition, long offset, long timestampMs, byte[] engine,
                             byte[] jobBook) {
    private static final int MAGIC = 0x47505342; // "GPSB"
    private static final int V1 = 1;
    private static final int V2 = 2;

    /** Whether the snapshot carries the job book (written by a scheduler with snapshot format 2). */
    public boolean hasJobBook() {
        return jobBook != null;
    }

    /** The journal position and format in words, for reports and errors. */
    public String describe() {
        return "engine snapshot of pool " + pool + " at journal " + partition + "@" + offset
                + (hasJobBook() ? "" : " (format 1, without the job book)");
    }

    /** The format-2 frame. */
    public byte[] toBytes() {
        if (jobBook == null) {
            throw new IllegalStateException("a snapshot without its job book is not written any more");
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(engine.length + jobBook.length + 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(V2);
            out.writeUTF(pool);
            out.writeInt(partition);
            out.writeLong(offset);
            out.writeLong(timestampMs);
            out.writeInt(engine.length);
            out.write(engine);
            out.writeInt(jobBook.length);
            out.write(jobBook);
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
            if (version != V1 && version != V2) {
                throw new IllegalArgumentException("engine snapshot record version " + version
                        + " is not supported (this gpupool reads versions 1 and 2): use the gpupool that wrote it");
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
            return new EngineSnapshot(pool, partition, offset, ts, engine, book);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated engine snapshot record", e);
        }
    }
}
