package io.gpupool.scheduler.stream;

import io.gpupool.avro.PlacementDecision;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * The last {@link #KEPT} decisions of a job, oldest first, as one store value (length-prefixed Avro
 * binary). The full history stays in gpupool.decisions; this is what GET /jobs/{id} shows.
 */
public final class DecisionHistory {
    public static final String STORE = "placer-history";
    static final int KEPT = 16;
    private static final SpecificDatumWriter<PlacementDecision> WRITER = new SpecificDatumWriter<>(PlacementDecision.class);
    private static final SpecificDatumReader<PlacementDecision> READER = new SpecificDatumReader<>(PlacementDecision.class);

    private DecisionHistory() {
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

    static byte[] append(final byte[] value, final PlacementDecision d) {
        final List<PlacementDecision> all = read(value);
        all.add(d);
        final ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try {
            for (final PlacementDecision p : all.subList(Math.max(0, all.size() - KEPT), all.size())) {
                final ByteArrayOutputStream one = new ByteArrayOutputStream(256);
                final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(one, null);
                WRITER.write(p, enc);
                enc.flush();
                out.write(ByteBuffer.allocate(4).putInt(one.size()).array());
                one.writeTo(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
