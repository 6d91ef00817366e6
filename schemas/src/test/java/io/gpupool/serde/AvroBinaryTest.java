package io.gpupool.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** The reused per-thread encoder writes exactly what a new encoder writes, whatever came before on the thread. */
class AvroBinaryTest {
    private static final Schema PAIR = SchemaBuilder.record("Pair").fields()
            .requiredString("first").requiredString("second").endRecord();
    private static final GenericDatumWriter<GenericRecord> WRITER = new GenericDatumWriter<>(PAIR);

    private static GenericRecord pair(final String first, final String second) {
        final GenericRecord r = new GenericData.Record(PAIR);
        r.put("first", first);
        r.put("second", second);
        return r;
    }

    /** The encoding with a new encoder, as before the reuse. */
    private static byte[] fresh(final byte[] prefix, final GenericRecord r) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(prefix);
        final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        WRITER.write(r, enc);
        enc.flush();
        return out.toByteArray();
    }

    @Test
    void consecutiveRecordsEncodeAsEachWouldAlone() throws IOException {
        final byte[] prefix = {0, 0, 0, 0, 7};
        for (final GenericRecord r : new GenericRecord[] {pair("a", "b"), pair("longer first", ""), pair("x", "y")}) {
            assertThat(AvroBinary.encode(prefix, WRITER, r)).isEqualTo(fresh(prefix, r));
        }
        assertThat(AvroBinary.encode(new byte[0], WRITER, pair("c", "d"))).isEqualTo(fresh(new byte[0], pair("c", "d")));
    }

    @Test
    void aWriteThatFailsHalfWayLeavesNothingForTheNextRecord() throws IOException {
        // "first" is buffered in the encoder before the null "second" throws
        assertThatThrownBy(() -> AvroBinary.encode(new byte[0], WRITER, pair("half written", null)))
                .isInstanceOf(NullPointerException.class);
        assertThat(AvroBinary.encode(new byte[] {1}, WRITER, pair("p", "q"))).isEqualTo(fresh(new byte[] {1}, pair("p", "q")));
    }

    @Test
    void aRecordLargerThanTheKeptBufferIsWholeAndTheNextIsToo() throws IOException {
        final GenericRecord big = pair("b".repeat(AvroBinary.KEPT_CAPACITY * 2), "end");
        assertThat(AvroBinary.encode(new byte[0], WRITER, big)).isEqualTo(fresh(new byte[0], big));
        assertThat(AvroBinary.encode(new byte[0], WRITER, pair("s", "t"))).isEqualTo(fresh(new byte[0], pair("s", "t")));
    }
}
