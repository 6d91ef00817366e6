package io.gpupool.scheduler.audit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A pool's engine snapshot as the scheduler writes it to the snapshot topic: the engine state after
 * applying journal entry {@code partition@offset} (inclusive), so a replay resumes at offset + 1.
 * The value is a small binary frame around {@code PoolEngine.snapshot()}; a magic number and a
 * version keep a foreign record from being taken for one.
 */
public record EngineSnapshot(String pool, int partition, long offset, long timestampMs, byte[] engine) {
    private static final int MAGIC = 0x47505342; // "GPSB"
    private static final int VERSION = 1;

    public byte[] toBytes() {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(engine.length + 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(pool);
            out.writeInt(partition);
            out.writeLong(offset);
            out.writeLong(timestampMs);
            out.writeInt(engine.length);
            out.write(engine);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static EngineSnapshot fromBytes(final byte[] b) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
            if (in.readInt() != MAGIC) {
                throw new IllegalArgumentException("not an engine snapshot record");
            }
            final int version = in.readInt();
            if (version != VERSION) {
                throw new IllegalArgumentException("engine snapshot record version " + version + " is not supported");
            }
            final String pool = in.readUTF();
            final int partition = in.readInt();
            final long offset = in.readLong();
            final long ts = in.readLong();
            final byte[] engine = new byte[in.readInt()];
            in.readFully(engine);
            return new EngineSnapshot(pool, partition, offset, ts, engine);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated engine snapshot record", e);
        }
    }
}
