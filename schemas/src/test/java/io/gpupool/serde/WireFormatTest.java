package io.gpupool.serde;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobCancel;
import io.gpupool.avro.JournalPosition;
import io.gpupool.registry.InMemorySchemaRegistry;
import io.gpupool.registry.SchemaNotFoundException;
import io.gpupool.registry.SchemaRegistry;
import io.gpupool.registry.SubjectNotFoundException;
import io.gpupool.serde.RecordDecodeException.Problem;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Byte vectors written by hand from the Confluent wire-format and Avro binary-encoding
 * specifications (magic byte 0, 4-byte big-endian schema id; zig-zag varints; strings as
 * length + UTF-8; union branch index before the value), not captured from our own output.
 */
class WireFormatTest {

    /** A registry that knows exactly one schema, under a chosen id, to pin the id bytes. */
    private static final class OneSchemaRegistry implements SchemaRegistry {
        private final int id;
        private final Schema schema;

        OneSchemaRegistry(final int id, final Schema schema) {
            this.id = id;
            this.schema = schema;
        }

        @Override
        public int register(final String subject, final Schema s) {
            return id;
        }

        @Override
        public int idOf(final String subject, final Schema s) {
            return id;
        }

        @Override
        public Schema schemaById(final int wanted) {
            if (wanted != id) {
                throw new SchemaNotFoundException("Schema " + wanted + " not found", 404, 40403);
            }
            return schema;
        }
    }

    private static byte[] bytes(final int... values) {
        final byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    // JobCancel{reason: ["null","string"]} = "oops", schema id 0x01020304:
    // 00 | 01 02 03 04 | 02 (union branch 1 = string, zig-zag 1 -> 2) | 08 (length 4) | 'o' 'o' 'p' 's'
    private static final byte[] CANCEL_OOPS = bytes(0x00, 0x01, 0x02, 0x03, 0x04, 0x02, 0x08, 0x6f, 0x6f, 0x70, 0x73);
    // JobCancel with reason null, schema id 7: 00 | 00 00 00 07 | 00 (union branch 0 = null)
    private static final byte[] CANCEL_NULL = bytes(0x00, 0x00, 0x00, 0x00, 0x07, 0x00);
    // JournalPosition{partition 3, offset -1, timestamp 1700000000000 ms}, schema id 256:
    // int 3 -> zig-zag 6 -> 06; long -1 -> zig-zag 1 -> 01;
    // 1700000000000 -> zig-zag 3400000000000 -> varint 80 a0 ab fe f9 62
    private static final byte[] POSITION = bytes(0x00, 0x00, 0x00, 0x01, 0x00, 0x06, 0x01,
            0x80, 0xa0, 0xab, 0xfe, 0xf9, 0x62);

    @Test
    void serializerWritesMagicByteBigEndianIdAndAvroBody() {
        final SpecificAvroSerializer<JobCancel> ser = new SpecificAvroSerializer<>(
                new OneSchemaRegistry(0x01020304, JobCancel.getClassSchema()), true, false);
        assertThat(ser.serialize("gpupool.jobs", new JobCancel("oops"))).containsExactly(CANCEL_OOPS);

        final SpecificAvroSerializer<JobCancel> ser7 = new SpecificAvroSerializer<>(
                new OneSchemaRegistry(7, JobCancel.getClassSchema()), true, false);
        assertThat(ser7.serialize("gpupool.jobs", new JobCancel(null))).containsExactly(CANCEL_NULL);
        assertThat(ser7.serialize("gpupool.jobs", null)).isNull();

        final SpecificAvroSerializer<JournalPosition> pos = new SpecificAvroSerializer<>(
                new OneSchemaRegistry(256, JournalPosition.getClassSchema()), true, false);
        assertThat(pos.serialize("t", new JournalPosition(3, -1L, Instant.ofEpochMilli(1_700_000_000_000L))))
                .containsExactly(POSITION);
    }

    @Test
    void deserializerReadsHandWrittenVectors() {
        final SpecificAvroDeserializer<JobCancel> de = new SpecificAvroDeserializer<>(
                new OneSchemaRegistry(0x01020304, JobCancel.getClassSchema()), JobCancel.class);
        assertThat(de.deserialize("gpupool.jobs", CANCEL_OOPS).getReason()).isEqualTo("oops");
        assertThat(de.deserialize("gpupool.jobs", null)).isNull();

        final SpecificAvroDeserializer<JournalPosition> pos = new SpecificAvroDeserializer<>(
                new OneSchemaRegistry(256, JournalPosition.getClassSchema()), JournalPosition.class);
        final JournalPosition p = pos.deserialize("t", POSITION);
        assertThat(p.getPartition()).isEqualTo(3);
        assertThat(p.getOffset()).isEqualTo(-1L);
        assertThat(p.getTimestamp()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
    }

    @Test
    void olderWriterSchemaResolvesToTodaysClass() {
        // GpuAssignment as first released without 'milli': {uuid: string, index: int}.
        final Schema old = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"GpuAssignment\","
                + "\"namespace\":\"io.gpupool.avro\",\"fields\":[{\"name\":\"uuid\",\"type\":\"string\"},"
                + "{\"name\":\"index\",\"type\":\"int\"}]}");
        // 00 | 00 00 00 2a (id 42) | 0a "GPU-a" (length 5) | 04 (index 2)
        final byte[] oldBytes = bytes(0x00, 0x00, 0x00, 0x00, 0x2a, 0x0a, 0x47, 0x50, 0x55, 0x2d, 0x61, 0x04);
        final SpecificAvroDeserializer<GpuAssignment> de = new SpecificAvroDeserializer<>(
                new OneSchemaRegistry(42, old), GpuAssignment.class);
        final GpuAssignment a = de.deserialize("t", oldBytes);
        assertThat(a.getUuid()).isEqualTo("GPU-a");
        assertThat(a.getIndex()).isEqualTo(2);
        assertThat(a.getMilli()).as("default of the field added later").isEqualTo(1000);
    }

    @Test
    void badBytesRaiseTypedProblems() {
        final SpecificAvroDeserializer<JobCancel> de = new SpecificAvroDeserializer<>(
                new OneSchemaRegistry(0x01020304, JobCancel.getClassSchema()), JobCancel.class);
        assertProblem(() -> de.deserialize("gpupool.jobs", bytes(0x00, 0x01, 0x02)), Problem.TRUNCATED_HEADER);
        assertProblem(() -> de.deserialize("gpupool.jobs", bytes(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d)),
                Problem.WRONG_MAGIC_BYTE);
        assertProblem(() -> de.deserialize("gpupool.jobs", bytes(0x00, 0x00, 0x00, 0x00, 0x09, 0x00)),
                Problem.UNKNOWN_SCHEMA_ID);
        final byte[] cut = Arrays.copyOf(CANCEL_OOPS, CANCEL_OOPS.length - 1);
        assertProblem(() -> de.deserialize("gpupool.jobs", cut), Problem.TRUNCATED_BODY);
        final byte[] longer = Arrays.copyOf(CANCEL_OOPS, CANCEL_OOPS.length + 2);
        assertProblem(() -> de.deserialize("gpupool.jobs", longer), Problem.TRAILING_BYTES);
        // union branch 5 (zig-zag 0x0a) does not exist in ["null","string"]
        assertProblem(() -> de.deserialize("gpupool.jobs", bytes(0x00, 0x01, 0x02, 0x03, 0x04, 0x0a)),
                Problem.CORRUPT_BODY);
        // a string length of -1 (zig-zag 0x01)
        assertProblem(() -> de.deserialize("gpupool.jobs", bytes(0x00, 0x01, 0x02, 0x03, 0x04, 0x02, 0x01)),
                Problem.CORRUPT_BODY);
    }

    @Test
    void writerOfAnotherRecordTypeIsASchemaMismatch() {
        final SpecificAvroDeserializer<JobCancel> de = new SpecificAvroDeserializer<>(
                new OneSchemaRegistry(256, JournalPosition.getClassSchema()), JobCancel.class);
        assertProblem(() -> de.deserialize("t", POSITION), Problem.SCHEMA_MISMATCH);
    }

    @Test
    void decoderAttachesPartitionAndOffset() {
        final RecordDecoder<JobCancel> decoder = new RecordDecoder<>(new SpecificAvroDeserializer<>(
                new OneSchemaRegistry(0x01020304, JobCancel.getClassSchema()), JobCancel.class));
        final ConsumerRecord<byte[], byte[]> good = new ConsumerRecord<>("gpupool.jobs", 2, 41L, null, CANCEL_OOPS);
        assertThat(decoder.value(good).getReason()).isEqualTo("oops");
        final ConsumerRecord<byte[], byte[]> bad = new ConsumerRecord<>("gpupool.jobs", 2, 42L, null, bytes(0x01));
        assertThatThrownBy(() -> decoder.value(bad)).isInstanceOfSatisfying(RecordDecodeException.class, e -> {
            assertThat(e.topic()).isEqualTo("gpupool.jobs");
            assertThat(e.partition()).isEqualTo(2);
            assertThat(e.offset()).isEqualTo(42L);
            assertThat(e.getMessage()).contains("gpupool.jobs-2@42").contains("TRUNCATED_HEADER");
            assertThat(e.retriable()).isFalse();
        });
    }

    @Test
    void locateMergesTheConsumersPositionIntoOurProblem() {
        final RecordDecodeException inner = new RecordDecodeException("gpupool.jobs", -1, -1L,
                Problem.WRONG_MAGIC_BYTE, -1, "first byte 0x7b", null);
        final RecordDeserializationException wrapped = new RecordDeserializationException(
                RecordDeserializationException.DeserializationExceptionOrigin.VALUE,
                new TopicPartition("gpupool.jobs", 5), 99L, 0L, TimestampType.CREATE_TIME, null, null,
                new RecordHeaders(), "Error deserializing", inner);
        final RecordDecodeException located = RecordDecodeException.locate(wrapped);
        assertThat(located.partition()).isEqualTo(5);
        assertThat(located.offset()).isEqualTo(99L);
        assertThat(located.problem()).isEqualTo(Problem.WRONG_MAGIC_BYTE);
    }

    @Test
    void locateForAStreamsHandlerKeepsOursAndWrapsOthers() {
        final ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("gpupool.jobs", 1, 7L, null, bytes(0x01));
        final RecordDecodeException ours = new RecordDecodeException("gpupool.jobs", -1, -1L,
                Problem.TRUNCATED_HEADER, -1, "1 byte", null);
        assertThat(RecordDecodeException.locate(ours, record).offset()).isEqualTo(7L);
        assertThat(RecordDecodeException.locate(ours, record).problem()).isEqualTo(Problem.TRUNCATED_HEADER);
        final RecordDecodeException other = RecordDecodeException.locate(new IllegalStateException("boom"), record);
        assertThat(other.problem()).isEqualTo(Problem.CORRUPT_BODY);
        assertThat(other.partition()).isEqualTo(1);
        assertThat(other.getMessage()).contains("gpupool.jobs-1@7").contains("boom");
    }

    @Test
    void serdeRoundTripsThroughAnInMemoryRegistryAndUsesTopicNameSubjects() {
        final Map<String, Object> configs = new HashMap<>();
        configs.put("schema.registry.url", "mock://wire-format-test");
        InMemorySchemaRegistry.drop("wire-format-test");
        final SpecificAvroSerde<JobCancel> serde = SpecificAvroSerde.forValues(JobCancel.class, configs);
        final byte[] b = serde.serializer().serialize("gpupool.jobs", new JobCancel("done"));
        assertThat(b[0]).isEqualTo((byte) 0);
        final InMemorySchemaRegistry registry = InMemorySchemaRegistry.named("wire-format-test");
        final int id = registry.idOf("gpupool.jobs-value", JobCancel.getClassSchema());
        assertThat(WireFormat.readSchemaId(b)).isEqualTo(id);
        assertThat(serde.deserializer().deserialize("gpupool.jobs", b).getReason()).isEqualTo("done");

        configs.put("auto.register.schemas", "false");
        final SpecificAvroSerde<JobCancel> noRegister = SpecificAvroSerde.forValues(JobCancel.class, configs);
        assertThatThrownBy(() -> noRegister.serializer().serialize("other", new JobCancel("x")))
                .isInstanceOf(RecordEncodeException.class).hasMessageContaining("other-value");
    }

    @Test
    void keysUseTheKeySubjectAndTheNoArgSerdeReadsTheWriterNamedClass() {
        InMemorySchemaRegistry.drop("wire-format-keys");
        final Map<String, Object> configs = Map.of("schema.registry.url", "mock://wire-format-keys");
        final SpecificAvroSerde<JobCancel> keys = new SpecificAvroSerde<>();
        keys.configure(configs, true);
        final byte[] b = keys.serializer().serialize("gpupool.jobs", new JobCancel("k"));
        final InMemorySchemaRegistry registry = InMemorySchemaRegistry.named("wire-format-keys");
        assertThat(WireFormat.readSchemaId(b)).isEqualTo(registry.idOf("gpupool.jobs-key", JobCancel.getClassSchema()));
        assertThatThrownBy(() -> registry.idOf("gpupool.jobs-value", JobCancel.getClassSchema()))
                .isInstanceOf(SubjectNotFoundException.class);
        assertThat(keys.deserializer().deserialize("gpupool.jobs", b)).isEqualTo(new JobCancel("k"));
    }

    private static void assertProblem(final ThrowableAssert.ThrowingCallable call,
                                      final Problem problem) {
        assertThatThrownBy(call).isInstanceOfSatisfying(RecordDecodeException.class,
                e -> assertThat(e.problem()).isEqualTo(problem));
    }
}
