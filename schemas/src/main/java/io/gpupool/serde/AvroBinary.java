package io.gpupool.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;

/**
 * Avro binary encoding through one encoder and buffer per thread. A new encoder allocates and clears its own
 * 2 KB buffer: per record on the placer's thread (every decision, node command, job record and history is
 * encoded) that was about 3 % of the thread's samples under a paced load.
 */
public final class AvroBinary {
    /** A buffer grown past this by a large record is not kept for the thread's next one. */
    static final int KEPT_CAPACITY = 64 * 1024;
    private static final ThreadLocal<AvroBinary> PER_THREAD = ThreadLocal.withInitial(AvroBinary::new);

    private Buffer out = new Buffer();
    private BinaryEncoder encoder;

    private AvroBinary() {
    }

    /** {@code prefix}, then {@code record} as {@code writer} writes it. */
    public static <T> byte[] encode(final byte[] prefix, final DatumWriter<T> writer, final T record) throws IOException {
        final AvroBinary a = PER_THREAD.get();
        a.out.reset();
        a.out.write(prefix, 0, prefix.length);
        try {
            a.encoder = EncoderFactory.get().binaryEncoder(a.out, a.encoder);
            writer.write(record, a.encoder);
            a.encoder.flush();
        } catch (IOException | RuntimeException e) {
            // a write that stopped half way leaves bytes in the encoder's buffer: the next record gets a new one
            a.encoder = null;
            throw e;
        }
        final byte[] bytes = a.out.toByteArray();
        if (a.out.capacity() > KEPT_CAPACITY) {
            a.out = new Buffer();
            a.encoder = null;
        }
        return bytes;
    }

    private static final class Buffer extends ByteArrayOutputStream {
        Buffer() {
            super(256);
        }

        int capacity() {
            return buf.length;
        }
    }
}
