package io.gpupool.scheduler.journal;

import io.gpupool.avro.JobRequest;
import io.gpupool.serde.AvroBinary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * What the placer remembers of a submitted job beyond the engine: where its submit sits in the
 * journal (so a re-applied entry is recognised as itself, a second submit as a duplicate), the
 * command id (a retried produce is ignored), and the request (node commands carry the job's name,
 * exec spec and runtime estimate to the sinks).
 *
 * <p>The request may be null in a <em>slim</em> record: what an engine snapshot keeps of a job that is
 * no longer live (finished, rejected). Such a job can never cause a node command again (its id is
 * taken: a second submit is a duplicate), so only its position and command id still matter.
 */
public record JobRecord(int partition, long offset, String commandId, JobRequest request) {
    private static final SpecificDatumWriter<JobRequest> WRITER = new SpecificDatumWriter<>(JobRequest.class);
    private static final SpecificDatumReader<JobRequest> READER = new SpecificDatumReader<>(JobRequest.class);

    boolean sameEntry(final int p, final long o) {
        return partition == p && offset == o;
    }

    /** The journal partition of a record in {@link #toBytes()} form, without decoding it. */
    static int partitionOf(final byte[] b) {
        return ByteBuffer.wrap(b).getInt(0);
    }

    /** The journal offset of a record in {@link #toBytes()} form, without decoding it. */
    static long offsetOf(final byte[] b) {
        return ByteBuffer.wrap(b).getLong(4);
    }

    /** Bytes of the header (partition, offset, command id length) and command id: a slim record's whole form. */
    static int slimLength(final byte[] b) {
        return 16 + ByteBuffer.wrap(b).getInt(12);
    }

    public byte[] toBytes() {
        try {
            final byte[] cmd = commandId.getBytes(StandardCharsets.UTF_8);
            final byte[] head = ByteBuffer.allocate(16 + cmd.length).putInt(partition).putLong(offset).putInt(cmd.length)
                    .put(cmd).array();
            return request == null ? head : AvroBinary.encode(head, WRITER, request);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JobRecord fromBytes(final byte[] b) {
        final ByteBuffer buf = ByteBuffer.wrap(b);
        final int p = buf.getInt();
        final long o = buf.getLong();
        final int len = buf.getInt();
        final String cmd = new String(b, 16, len, StandardCharsets.UTF_8);
        if (b.length == 16 + len) {
            return new JobRecord(p, o, cmd, null); // slim
        }
        final BinaryDecoder dec = DecoderFactory.get().binaryDecoder(b, 16 + len, b.length - 16 - len, null);
        try {
            return new JobRecord(p, o, cmd, READER.read(null, dec));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
