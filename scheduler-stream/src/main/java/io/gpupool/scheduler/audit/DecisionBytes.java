package io.gpupool.scheduler.audit;

import io.gpupool.avro.PlacementDecision;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * A decision's Avro binary form without the registry framing: what "byte-equal" compares. The
 * schema id in the wire framing depends on the registry, not on the scheduler, so it is left out.
 * One instance per thread (it reuses its buffers).
 */
final class DecisionBytes {
    private final SpecificDatumWriter<PlacementDecision> writer = new SpecificDatumWriter<>(PlacementDecision.class);
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    private BinaryEncoder encoder;

    byte[] of(final PlacementDecision d) {
        out.reset();
        encoder = EncoderFactory.get().binaryEncoder(out, encoder);
        try {
            writer.write(d, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
