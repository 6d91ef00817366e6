package io.gpupool.localstack.registry;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.MigMode;
import io.gpupool.avro.NodeInventory;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.IncompatibleSchemaException;
import io.gpupool.registry.SchemaRegistryClient;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.RecordDecodeException;
import io.gpupool.serde.RecordEncodeException;
import io.gpupool.serde.SpecificAvroDeserializer;
import io.gpupool.serde.SpecificAvroSerializer;
import io.gpupool.serde.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Records through the serdes, the stack's registry over real HTTP and a real broker: the serdes
 * are configured by class name, as Kafka clients and Streams build them.
 */
@ExtendWith(LocalStackExtension.class)
class SerdeOnKafkaTest {

    /** JobEvent as first written: only the fields every event has. */
    private static final Schema JOB_EVENT_V0 = Schemas.parse("{\"type\":\"record\",\"name\":\"JobEvent\","
            + "\"namespace\":\"io.gpupool.avro\",\"fields\":[{\"name\":\"jobId\",\"type\":\"string\"},"
            + "{\"name\":\"eventId\",\"type\":\"string\"},{\"name\":\"type\",\"type\":{\"type\":\"enum\","
            + "\"name\":\"JobEventType\",\"symbols\":[\"UNKNOWN\",\"APPLIED\",\"STARTED\",\"COMPLETED\",\"FAILED\","
            + "\"EVICTED\"],\"default\":\"UNKNOWN\"}},{\"name\":\"occurredAt\",\"type\":{\"type\":\"long\","
            + "\"logicalType\":\"timestamp-millis\"}}]}");

    /** A JobEvent that changed jobId to an int: must be refused under BACKWARD. */
    public static final class RetypedJobEvent extends SpecificRecordBase {
        static final Schema SCHEMA = Schemas.parse("{\"type\":\"record\",\"name\":\"JobEvent\","
                + "\"namespace\":\"io.gpupool.avro\",\"fields\":[{\"name\":\"jobId\",\"type\":\"int\"}]}");
        private int jobId = 7;

        @Override
        public Schema getSchema() {
            return SCHEMA;
        }

        @Override
        public Object get(final int field) {
            return jobId;
        }

        @Override
        public void put(final int field, final Object value) {
            jobId = (Integer) value;
        }
    }

    @Test
    void producesAndConsumesInWireFormat(final TestStack stack) {
        final String url = stack.requireRegistryUrl();
        final String topic = stack.uniqueName("serde-inventory");
        final NodeInventory inventory = inventory();
        try (KafkaProducer<String, NodeInventory> producer = new KafkaProducer<>(producerConfig(stack, url))) {
            producer.send(new ProducerRecord<>(topic, "n17", inventory)).get();
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
        final int id = SchemaRegistryClient.of(url).lookup(topic + "-value", NodeInventory.getClassSchema()).id();

        final List<ConsumerRecord<byte[], byte[]>> raw = pollRaw(stack, topic, 1);
        final byte[] bytes = raw.get(0).value();
        assertThat(bytes[0]).isEqualTo((byte) 0x00);
        assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(id);
        assertThat(bytes.length).isGreaterThan(WireFormat.HEADER_SIZE);

        final List<ConsumerRecord<String, NodeInventory>> decoded = poll(stack, topic, url, NodeInventory.class, 1);
        assertThat(decoded.get(0).value()).isEqualTo(inventory);
        assertThat(decoded.get(0).value().getGpus().get(0).getMemoryMiB()).isNull();
    }

    @Test
    void newerReaderReadsOldRecordsAndIncompatibleSchemasAreRefused(final TestStack stack) throws Exception {
        final String url = stack.requireRegistryUrl();
        final String topic = stack.uniqueName("serde-job-events");
        final SchemaRegistryClient client = SchemaRegistryClient.of(url);
        final int oldId = client.register(topic + "-value", JOB_EVENT_V0);
        final GenericRecord old = new GenericData.Record(JOB_EVENT_V0);
        old.put("jobId", "job-1");
        old.put("eventId", "e-1");
        old.put("type", new GenericData.EnumSymbol(JOB_EVENT_V0.getField("type").schema(), "STARTED"));
        old.put("occurredAt", 1_700_000_000_000L);
        produceRaw(stack, topic, "job-1", wire(oldId, JOB_EVENT_V0, old));

        final JobEvent current = JobEvent.newBuilder().setJobId("job-1").setEventId("e-2")
                .setType(JobEventType.COMPLETED).setNodeId("n17").setExitCode(0)
                .setOccurredAt(Instant.ofEpochMilli(1_700_000_060_000L)).setGpuUuids(List.of("GPU-a")).build();
        try (KafkaProducer<String, JobEvent> producer = new KafkaProducer<>(producerConfig(stack, url))) {
            producer.send(new ProducerRecord<>(topic, "job-1", current)).get();
        }
        assertThat(client.latest(topic + "-value").version()).as("current schema registered as v2").isEqualTo(2);

        final List<ConsumerRecord<String, JobEvent>> events = poll(stack, topic, url, JobEvent.class, 2);
        final JobEvent fromOld = events.get(0).value();
        assertThat(fromOld.getJobId()).isEqualTo("job-1");
        assertThat(fromOld.getType()).isEqualTo(JobEventType.STARTED);
        assertThat(fromOld.getNodeId()).as("field the old writer lacked").isNull();
        assertThat(fromOld.getGpuUuids()).isEmpty();
        assertThat(events.get(1).value()).isEqualTo(current);

        try (KafkaProducer<String, RetypedJobEvent> producer = new KafkaProducer<>(producerConfig(stack, url))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "job-2", new RetypedJobEvent())))
                    .isInstanceOf(RecordEncodeException.class)
                    .hasCauseInstanceOf(IncompatibleSchemaException.class);
        }
    }

    @Test
    void enumSymbolsAddedByANewerWriterReadAsUnknown(final TestStack stack) throws Exception {
        final String url = stack.requireRegistryUrl();
        final String topic = stack.uniqueName("serde-new-symbol");
        final Schema newer = Schemas.parse(JobEvent.getClassSchema().toString()
                .replace("\"RELEASED\"]", "\"RELEASED\",\"PREEMPTED\"]"));
        assertThat(newer.getField("type").schema().getEnumSymbols()).contains("PREEMPTED");
        final int id = SchemaRegistryClient.of(url).register(topic + "-value", newer);
        final GenericRecord r = new GenericData.Record(newer);
        r.put("jobId", "job-9");
        r.put("eventId", "e-9");
        r.put("type", new GenericData.EnumSymbol(newer.getField("type").schema(), "PREEMPTED"));
        r.put("occurredAt", 1_700_000_000_000L);
        r.put("gpuUuids", List.of());
        produceRaw(stack, topic, "job-9", wire(id, newer, r));
        final JobEvent read = poll(stack, topic, url, JobEvent.class, 1).get(0).value();
        assertThat(read.getType()).isEqualTo(JobEventType.UNKNOWN);
    }

    @Test
    void badBytesAreReportedWithTheirPositionAndTheRestIsRead(final TestStack stack) throws Exception {
        final String url = stack.requireRegistryUrl();
        final String topic = stack.uniqueName("serde-bad-bytes");
        try (Admin admin = Admin.create(
                stack.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        produceRaw(stack, topic, "n1", "{\"not\":\"avro\"}".getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<String, NodeInventory> producer = new KafkaProducer<>(producerConfig(stack, url))) {
            producer.send(new ProducerRecord<>(topic, "n2", inventory())).get();
        }
        try (KafkaConsumer<String, NodeInventory> consumer = new KafkaConsumer<>(
                consumerConfig(stack, url, NodeInventory.class))) {
            final TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final List<RecordDecodeException> undecodable = new ArrayList<>();
            final List<NodeInventory> good = new ArrayList<>();
            await("a good record past the bad one").atMost(Duration.ofSeconds(30)).pollInSameThread()
                    .pollDelay(Duration.ZERO).until(() -> {
                        try {
                            consumer.poll(Duration.ofMillis(200)).forEach(rec -> good.add(rec.value()));
                        } catch (final RecordDeserializationException e) {
                            undecodable.add(RecordDecodeException.locate(e));
                            // a DLQ-aware consumer would dead-letter here; then it moves on
                            consumer.seek(e.topicPartition(), e.offset() + 1);
                        }
                        return !good.isEmpty();
                    });
            final RecordDecodeException bad = undecodable.isEmpty() ? null : undecodable.get(undecodable.size() - 1);
            assertThat(bad).isNotNull();
            assertThat(bad.topic()).isEqualTo(topic);
            assertThat(bad.partition()).isEqualTo(0);
            assertThat(bad.offset()).isEqualTo(0L);
            assertThat(bad.problem()).isEqualTo(RecordDecodeException.Problem.WRONG_MAGIC_BYTE);
            assertThat(good).containsExactly(inventory());
        }
    }

    private static NodeInventory inventory() {
        return NodeInventory.newBuilder().setNodeId("n17").setPool("pool-a").setLeaf("leaf-3").setSpine("spine-1")
                .setObservedAt(Instant.ofEpochMilli(1_700_000_000_000L)).setSource("simulated")
                .setCpuMilli(192_000L).setMemoryMiB(2_000_000L)
                .setGpus(List.of(GpuInfo.newBuilder().setUuid("GPU-5f0c").setIndex(0)
                        .setModel("NVIDIA H100 80GB HBM3").setMemoryMiB(null).setPciBusId("00000000:1B:00.0")
                        .setNvlinkGroup("nv0").setMigMode(MigMode.DISABLED).build()))
                .setLabels(Map.of("zone", "a")).build();
    }

    private static Properties producerConfig(final TestStack stack, final String url) {
        final Properties p = stack.producerConfig();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, SpecificAvroSerializer.class.getName());
        p.put("schema.registry.url", url);
        return p;
    }

    private static Properties consumerConfig(final TestStack stack, final String url, final Class<?> type) {
        final Properties p = stack.consumerConfig(stack.uniqueName("serde-group"));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, SpecificAvroDeserializer.class.getName());
        p.put("schema.registry.url", url);
        p.put(AvroSerdeConfig.VALUE_TYPE, type.getName());
        return p;
    }

    private static <T> List<ConsumerRecord<String, T>> poll(final TestStack stack, final String topic,
                                                            final String url, final Class<T> type, final int n) {
        try (KafkaConsumer<String, T> consumer = new KafkaConsumer<>(consumerConfig(stack, url, type))) {
            return read(consumer, topic, n);
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> pollRaw(final TestStack stack, final String topic,
                                                                final int n) {
        final Properties p = stack.consumerConfig(stack.uniqueName("raw-group"));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            return read(consumer, topic, n);
        }
    }

    /** The topic's first {@code n} records; fails if there are more by then. */
    private static <K, V> List<ConsumerRecord<K, V>> read(final KafkaConsumer<K, V> consumer, final String topic, final int n) {
        consumer.subscribe(List.of(topic));
        final List<ConsumerRecord<K, V>> out = new ArrayList<>();
        await(n + " records of " + topic).atMost(Duration.ofSeconds(30)).pollInSameThread().pollDelay(Duration.ZERO)
                .until(() -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                    return out.size() >= n;
                });
        assertThat(out).hasSize(n);
        return out;
    }

    private static void produceRaw(final TestStack stack, final String topic, final String key, final byte[] value)
            throws Exception {
        final Properties p = stack.producerConfig();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        }
    }

    /** Wire format written by hand here: magic 0, big-endian id, Avro body of the given writer schema. */
    private static byte[] wire(final int id, final Schema schema, final GenericRecord record) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(id).array());
        final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, enc);
        enc.flush();
        return out.toByteArray();
    }
}
