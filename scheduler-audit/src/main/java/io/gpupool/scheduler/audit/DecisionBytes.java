package io.gpupool.scheduler.audit;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * A decision's (or node command's) Avro binary form without the registry framing: what "byte-equal"
 * compares. The schema id in the wire framing depends on the registry, not on the scheduler, so it is
 * left out. One instance per thread (it reuses its buffers).
 */
final class DecisionBytes<T extends SpecificRecord> {
    private final SpecificDatumWriter<T> writer;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    private BinaryEncoder encoder;

    private DecisionBytes(final Class<T> type) {
        this.writer = new SpecificDatumWriter<>(type);
    }

    static DecisionBytes<PlacementDecision> decisions() {
        return new DecisionBytes<>(PlacementDecision.class);
    }

    static DecisionBytes<NodeCommand> commands() {
        return new DecisionBytes<>(NodeCommand.class);
    }

    byte[] of(final T d) {
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
