package io.gpupool.scheduler.journal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A snapshot record cut into chunks for the snapshot topic. A 4,096-node pool's engine snapshot is
 * several MB, over the producer's request limit and the broker's default message size, so each
 * snapshot goes out as chunks of at most {@link #CHUNK_BYTES}, keyed {@code pool#slot#index} so that
 * compaction keeps every chunk of the newest snapshot in each slot. A reader puts a snapshot back
 * together only when it has all chunks of the same generation: chunks that a shorter, newer snapshot
 * left behind in a slot belong to an older generation and are ignored.
 */
public final class SnapshotChunks {
    /** Under the broker's default message.max.bytes (1 MB) with room for the frame and batch headers. */
    public static final int CHUNK_BYTES = 512 * 1024;
    private static final int MAGIC = 0x47505343; // "GPSC"
    private static final int VERSION = 1;

    /** One chunk as it goes to the topic. */
    public record Chunk(String key, byte[] value) {
    }

    private SnapshotChunks() {
    }

    /** The chunks of one snapshot record ({@link EngineSnapshot#toBytes()}), in order. */
    public static List<Chunk> split(final String pool, final long generation, final byte[] snapshot) {
        final int count = Math.max(1, (snapshot.length + CHUNK_BYTES - 1) / CHUNK_BYTES);
        final List<Chunk> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            final int from = i * CHUNK_BYTES;
            final int len = Math.min(CHUNK_BYTES, snapshot.length - from);
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream(len + 64);
            try (DataOutputStream out2 = new DataOutputStream(bytes)) {
                out2.writeInt(MAGIC);
                out2.writeInt(VERSION);
                out2.writeUTF(pool);
                out2.writeLong(generation);
                out2.writeInt(i);
                out2.writeInt(count);
                out2.writeInt(len);
                out2.write(snapshot, from, len);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            out.add(new Chunk(SnapshotTopic.key(pool, generation) + "#" + i, bytes.toByteArray()));
        }
        return out;
    }

    /** Collects chunks read from the topic (any order) and hands back the whole snapshots. */
    public static final class Assembler {
        /** (pool, generation) to chunk index to bytes; sorted so the output order is stable. */
        private final TreeMap<String, TreeMap<Long, TreeMap<Integer, byte[]>>> parts = new TreeMap<>();
        private final TreeMap<String, TreeMap<Long, Integer>> counts = new TreeMap<>();

        /** Adds one record value; a value that is not a chunk is refused with the reason. */
        public void add(final byte[] value) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
                if (in.readInt() != MAGIC) {
                    throw new IllegalArgumentException("not an engine snapshot chunk");
                }
                final int version = in.readInt();
                if (version != VERSION) {
                    throw new IllegalArgumentException("engine snapshot chunk version " + version + " is not supported");
                }
                final String pool = in.readUTF();
                final long generation = in.readLong();
                final int index = in.readInt();
                final int count = in.readInt();
                final byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                parts.computeIfAbsent(pool, p -> new TreeMap<>()).computeIfAbsent(generation, g -> new TreeMap<>())
                        .put(index, bytes);
                counts.computeIfAbsent(pool, p -> new TreeMap<>()).put(generation, count);
            } catch (IOException e) {
                throw new IllegalArgumentException("truncated engine snapshot chunk", e);
            }
        }

        /** Every snapshot of which all chunks were seen, per pool, by generation. */
        public Map<String, List<byte[]>> complete() {
            final Map<String, List<byte[]>> out = new TreeMap<>();
            for (final Map.Entry<String, TreeMap<Long, TreeMap<Integer, byte[]>>> pool : parts.entrySet()) {
                for (final Map.Entry<Long, TreeMap<Integer, byte[]>> gen : pool.getValue().entrySet()) {
                    final int count = counts.get(pool.getKey()).get(gen.getKey());
                    if (gen.getValue().size() != count) {
                        continue; // chunks lost to a newer snapshot in the same slot: not usable
                    }
                    final ByteArrayOutputStream whole = new ByteArrayOutputStream();
                    gen.getValue().values().forEach(whole::writeBytes);
                    out.computeIfAbsent(pool.getKey(), k -> new ArrayList<>()).add(whole.toByteArray());
                }
            }
            return out;
        }
    }
}
