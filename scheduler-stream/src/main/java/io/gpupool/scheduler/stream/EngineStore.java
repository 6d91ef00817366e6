package io.gpupool.scheduler.stream;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Engine state of the placer's pools in a changelogged store, so a restart restores without re-reading
 * the whole journal: per pool a meta record (generation, chunk count, the journal offset the snapshot
 * covers) and the last engine snapshot cut into chunks, because a 32k-GPU pool's snapshot can exceed
 * the 1 MB record limit. The entries applied since a snapshot are not stored again: they are on the
 * journal, and a restore re-reads them from it ({@link JournalTail}), from the snapshot's offset to the
 * application's committed one.
 *
 * <p>Schedulers of before kept those entries a second time, in a write-ahead tail store (one per slot
 * 0..N-1 with the generation they belong to), and their meta record names no offset. Such a pool is
 * restored from that tail and keeps appending to it until its next snapshot, which is of this form.
 */
public final class EngineStore {
    public static final String SNAPSHOTS = "placer-snapshots";
    public static final String TAIL = "placer-tail";
    /** Below Kafka's default 1 MB record limit with room for headers. */
    static final int CHUNK_BYTES = 512 * 1024;
    private static final char SEP = '\u0001';

    /** Meta records of before name no covered offset. */
    static final int LEGACY_META_BYTES = 16;
    /** {@link Stored#covered()} of a pool stored in the form of before: its tail is in the tail store. */
    static final long LEGACY = Long.MIN_VALUE;

    /**
     * A pool's snapshot, the journal offset up to which (inclusive) it holds every entry of the pool, and the
     * entries after it: from the tail store for a {@link #LEGACY} pool, else none until {@link JournalTail} reads them.
     */
    record Stored(String pool, long generation, byte[] snapshot, long covered, List<TailEntry> tail) {
        boolean legacy() {
            return covered == LEGACY;
        }

        Stored withTail(final List<TailEntry> entries) {
            return new Stored(pool, generation, snapshot, covered, List.copyOf(entries));
        }
    }

    /** One applied journal entry: its position and its raw bytes as read from the journal. */
    record TailEntry(int partition, long offset, long timestamp, byte[] journalValue) {
    }

    private final KeyValueStore<String, byte[]> snapshots;
    private final KeyValueStore<String, byte[]> tail;

    EngineStore(final KeyValueStore<String, byte[]> snapshots, final KeyValueStore<String, byte[]> tail) {
        this.snapshots = snapshots;
        this.tail = tail;
    }

    /** Every pool this task has state for, with what restore needs. */
    List<Stored> load() {
        final List<String> pools = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = snapshots.range("m" + SEP, "m" + (char) (SEP + 1))) {
            while (it.hasNext()) {
                pools.add(it.next().key.substring(2));
            }
        }
        final List<Stored> out = new ArrayList<>();
        for (final String pool : pools) {
            out.add(load(pool));
        }
        return out;
    }

    /** One pool's snapshot and tail (the pool has a snapshot meta record: every pool gets one when it is created). */
    Stored load(final String pool) {
        final byte[] metaBytes = snapshots.get(metaKey(pool));
        final ByteBuffer meta = ByteBuffer.wrap(metaBytes);
        final long gen = meta.getLong();
        final int chunks = meta.getInt();
        final int size = meta.getInt();
        final long covered = metaBytes.length == LEGACY_META_BYTES ? LEGACY : meta.getLong();
        final byte[] snapshot = chunks == 0 ? null : new byte[size];
        int at = 0;
        for (int i = 0; i < chunks; i++) {
            final byte[] c = snapshots.get(chunkKey(pool, i));
            if (c == null) {
                throw new IllegalStateException("snapshot of pool " + pool + " lacks chunk " + i + " of " + chunks);
            }
            System.arraycopy(c, 0, snapshot, at, c.length);
            at += c.length;
        }
        return new Stored(pool, gen, snapshot, covered, covered == LEGACY ? tailOf(pool, gen) : List.of());
    }

    private List<TailEntry> tailOf(final String pool, final long gen) {
        final List<TailEntry> entries = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = tail.range(pool + SEP, pool + (char) (SEP + 1))) {
            int expected = 0;
            while (it.hasNext()) {
                final KeyValue<String, byte[]> kv = it.next();
                final ByteBuffer b = ByteBuffer.wrap(kv.value);
                if (b.getLong() != gen || slotOf(kv.key) != expected) {
                    break; // the rest is an older generation's
                }
                expected++;
                final int partition = b.getInt();
                final long offset = b.getLong();
                final long ts = b.getLong();
                final byte[] value = new byte[b.remaining()];
                b.get(value);
                entries.add(new TailEntry(partition, offset, ts, value));
            }
        }
        return entries;
    }

    /** Only for a {@link Stored#legacy()} pool, until its next snapshot. */
    void appendTail(final String pool, final long gen, final int slot, final TailEntry e) {
        final ByteBuffer b = ByteBuffer.allocate(28 + e.journalValue().length);
        b.putLong(gen).putInt(e.partition()).putLong(e.offset()).putLong(e.timestamp()).put(e.journalValue());
        tail.put(tailKey(pool, slot), b.array());
    }

    /**
     * Stores a new snapshot as generation {@code gen}, holding every entry of the pool up to journal offset
     * {@code covered}; a tail in the tail store stops counting.
     */
    void writeSnapshot(final String pool, final long gen, final byte[] snapshot, final long covered) {
        final int oldChunks = chunksOf(pool);
        final int chunks = snapshot == null ? 0 : (snapshot.length + CHUNK_BYTES - 1) / CHUNK_BYTES;
        for (int i = 0; i < chunks; i++) {
            final int from = i * CHUNK_BYTES;
            final byte[] c = Arrays.copyOfRange(snapshot, from, Math.min(snapshot.length, from + CHUNK_BYTES));
            snapshots.put(chunkKey(pool, i), c);
        }
        for (int i = chunks; i < oldChunks; i++) {
            snapshots.delete(chunkKey(pool, i));
        }
        snapshots.put(metaKey(pool), ByteBuffer.allocate(LEGACY_META_BYTES + 8).putLong(gen).putInt(chunks)
                .putInt(snapshot == null ? 0 : snapshot.length).putLong(covered).array());
    }

    private int chunksOf(final String pool) {
        final byte[] meta = snapshots.get(metaKey(pool));
        return meta == null ? 0 : ByteBuffer.wrap(meta).getInt(8);
    }

    static String metaKey(final String pool) {
        return "m" + SEP + pool;
    }

    private static String chunkKey(final String pool, final int i) {
        return "c" + SEP + pool + SEP + String.format(Locale.ROOT, "%06d", i);
    }

    private static String tailKey(final String pool, final int slot) {
        // zero-padded so that key order is slot order (a range scan reads the tail in order)
        final String digits = Integer.toString(slot);
        return pool + SEP + (digits.length() >= 8 ? digits : "00000000".substring(digits.length()) + digits);
    }

    private static int slotOf(final String key) {
        return Integer.parseInt(key.substring(key.lastIndexOf(SEP) + 1));
    }

    static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
