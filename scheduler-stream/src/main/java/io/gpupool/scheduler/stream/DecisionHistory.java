package io.gpupool.scheduler.stream;

import io.gpupool.avro.PlacementDecision;
import io.gpupool.serde.AvroBinary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * The last {@link #KEPT} decisions of a job, oldest first, as one store value (length-prefixed Avro
 * binary). The full history stays in gpupool.decisions; this is what GET /jobs/{id} shows. The store is
 * written when the job's pool is snapshotted; what changed since is in {@link UnflushedHistory}.
 */
public final class DecisionHistory {
    public static final String STORE = "placer-history";
    static final int KEPT = 16;
    private static final SpecificDatumWriter<PlacementDecision> WRITER = new SpecificDatumWriter<>(PlacementDecision.class);
    private static final byte[] NO_PREFIX = new byte[0];
    private static final SpecificDatumReader<PlacementDecision> READER = new SpecificDatumReader<>(PlacementDecision.class);

    private DecisionHistory() {
    }

    /**
     * A job's last decisions as a query sees them: changed since its pool's snapshot ({@link UnflushedHistory}),
     * else as stored.
     */
    public static List<PlacementDecision> of(final String jobId, final PoolEngines engines,
                                             final Function<String, byte[]> stored) {
        for (final PoolEngines.Handle h : engines.all()) {
            final byte[] recent = h.history().get(jobId);
            if (recent != null) {
                return read(recent);
            }
        }
        return read(stored.apply(jobId));
    }

    public static List<PlacementDecision> read(final byte[] value) {
        final List<PlacementDecision> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        final ByteBuffer b = ByteBuffer.wrap(value);
        try {
            while (b.remaining() >= 4) {
                final int len = b.getInt();
                out.add(READER.read(null, DecoderFactory.get().binaryDecoder(value, b.position(), len, null)));
                b.position(b.position() + len);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Appends without decoding what is there: only the length prefixes are walked, to drop the oldest. */
    static byte[] append(final byte[] value, final PlacementDecision d) {
        final byte[] one;
        try {
            one = AvroBinary.encode(NO_PREFIX, WRITER, d);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return appendEncoded(value, one, 0);
    }

    /**
     * As {@link #append}, with the decision already in Avro binary from {@code from} to the end of {@code encoded}
     * (the decisions topic's value after its wire-format header): written once, for the topic and the history.
     */
    static byte[] appendEncoded(final byte[] value, final byte[] encoded, final int from) {
        int keepFrom = 0;
        if (value != null) {
            int count = 0;
            for (int at = 0; at + 4 <= value.length; at += 4 + ByteBuffer.wrap(value, at, 4).getInt()) {
                count++;
            }
            for (int drop = count - (KEPT - 1); drop > 0; drop--) {
                keepFrom += 4 + ByteBuffer.wrap(value, keepFrom, 4).getInt();
            }
        }
        final int keep = value == null ? 0 : value.length - keepFrom;
        final int length = encoded.length - from;
        final ByteBuffer out = ByteBuffer.allocate(keep + 4 + length);
        if (keep > 0) {
            out.put(value, keepFrom, keep);
        }
        out.putInt(length).put(encoded, from, length);
        return out.array();
    }
}
