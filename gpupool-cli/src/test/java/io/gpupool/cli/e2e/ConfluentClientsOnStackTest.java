package io.gpupool.cli.e2e;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.up.PipelineOptions;
import io.gpupool.cli.up.PipelineParts;
import io.gpupool.cli.up.PipelineServices;
import io.gpupool.cli.up.SchedulerService;
import io.gpupool.cli.up.ServiceGroup;
import io.gpupool.cli.up.TopicsService;
import io.gpupool.cli.up.UpContext;
import io.gpupool.cli.up.UpService;
import io.gpupool.cli.workload.JobCommands;
import io.gpupool.localstack.broker.BrokerLayout;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.SchemaRegistryClient;
import io.gpupool.schemas.RecordTypes;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerde;
import io.gpupool.serde.WireFormat;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients of other languages, as their users write them: Confluent's JavaScript serde with kafkajs
 * ({@code interop/node}) and Debian's confluent-kafka for Python ({@code interop/python}), run as real
 * processes against the pipeline {@code gpupool up} runs (topics and their schemas, the scheduler, a
 * simulated fleet of 8 nodes x 8 GPUs and the simulated sink) on the shared local stack. Before them,
 * what such clients rely on, written byte by byte from Java: the schemas are there before anyone
 * writes, an Avro- or JSON-serialized key names the same job, a newer client's enum symbol is refused
 * rather than dropped, and a dead letter names the record's position. Without node (or its
 * {@code npm ci}) or the Python package the client tests skip with the reason; with CI set they fail
 * ({@link InteropClient}). {@link ConfluentClientsOnSecuredStackTest} runs the same clients on {@code up --secure}.
 */
@ExtendWith(LocalStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConfluentClientsOnStackTest {

    private static final Duration WAIT = InteropClient.WAIT;

    private TestStack stack;
    private String prefix;
    private TopicCatalog catalog;
    private ServiceGroup group;
    private TopicLog<PlacementDecision> decisions;
    private SchemaRegistryClient registry;

    @BeforeAll
    void startThePipeline(final TestStack stack, @TempDir final Path dir) throws Exception {
        this.stack = stack;
        prefix = stack.uniqueName("interop");
        final Map<String, String> names = OnStackPipeline.topicNames(prefix);
        catalog = TopicCatalog.defaults().withOverrides(names);
        final PipelineOptions options = OnStackPipeline.smallFleet(5);
        final UpContext context = OnStackPipeline.context(stack, dir.resolve("stack"), names);
        registry = SchemaRegistryClient.of(stack.requireRegistryUrl());
        final List<UpService> services = new ArrayList<>(List.of(new TopicsService(), new SchedulerService(prefix + "-scheduler")));
        services.addAll(PipelineServices.of(options, new PipelineParts(), new PrintWriter(new StringWriter(), true)));
        group = new ServiceGroup(services);
        group.start(context);
        decisions = new TopicLog<>(stack, catalog.name(Topic.DECISIONS), PlacementDecision.class);
    }

    @AfterAll
    void stopThePipeline() throws Exception {
        for (final AutoCloseable c : new AutoCloseable[] {decisions, group}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @Order(1)
    void everyValueSchemaIsRegisteredBeforeAnyoneWrites() {
        // nothing has produced to these topics yet: `up`'s topics step registered them
        for (final Topic t : Topic.values()) {
            RecordTypes.valueClass(t).ifPresent(type -> assertThat(registry.latest(catalog.name(t) + "-value").schema())
                    .as("schema of %s", catalog.name(t)).isEqualTo(org.apache.avro.specific.SpecificData.get().getSchema(type)));
        }
        assertThat(registry.subjects()).doesNotContain(catalog.name(Topic.DLQ) + "-value");
    }

    @Test
    @Order(2)
    void anAvroOrJsonSerializedStringKeyNamesTheSameJob() throws Exception {
        final String topic = catalog.name(Topic.JOBS);
        final int stringKeySchema = registry.register(topic + "-key", Schema.create(Schema.Type.STRING));
        final Serializer<JobCommand> values = SpecificAvroSerde.forValues(JobCommand.class,
                AvroSerdeConfig.forClient(Map.of(), stack.requireRegistryUrl())).serializer();
        final String avroKeyed = prefix + "-avro-key";
        final String jsonKeyed = prefix + "-json-key";
        try (KafkaProducer<byte[], byte[]> producer = rawProducer()) {
            producer.send(new ProducerRecord<>(topic, avroString(stringKeySchema, avroKeyed),
                    values.serialize(topic, JobCommands.submit(avroKeyed, request(1).build(), "interop")))).get();
            producer.send(new ProducerRecord<>(topic, ("\"" + jsonKeyed + "\"").getBytes(StandardCharsets.UTF_8),
                    values.serialize(topic, JobCommands.submit(jsonKeyed, request(1).build(), "interop")))).get();
        }
        for (final String job : List.of(avroKeyed, jsonKeyed)) {
            final PlacementDecision placed = decisions.await(d -> d.getJobId().equals(job) && d.getOutcome() != DecisionOutcome.QUEUED,
                    WAIT, "decision of " + job);
            assertThat(placed.getOutcome()).as("%s: %s", job, placed.getMessage()).isEqualTo(DecisionOutcome.PLACED);
        }
    }

    @Test
    @Order(7) // last: the clients before it write with the stack's own schema, not this newer one
    void aNewerClientsEnumSymbolIsRejectedAsUnknownNotDropped() throws Exception {
        final String topic = catalog.name(Topic.JOBS);
        // the JobCommand schema of a newer client: a network kind this scheduler does not know
        final Schema newer = new Schema.Parser().parse(JobCommand.getClassSchema().toString()
                .replace("\"INFINIBAND\",\"ROCE\"]", "\"INFINIBAND\",\"ROCE\",\"NVLINK_SWITCH\"]"));
        assertThat(newer.toString()).contains("NVLINK_SWITCH");
        final int id = registry.register(topic + "-value", newer);
        final String job = prefix + "-newer-network";
        final JobCommand submit = JobCommands.submit(job, request(8).setNodes(2).build(), "interop");
        submit.setRequestedAt(null); // a timestamp-millis Instant, which GenericData without conversions cannot write
        final GenericRecord command = (GenericRecord) GenericData.get().deepCopy(newer, submit);
        final GenericRecord req = (GenericRecord) ((GenericRecord) command.get("command")).get("request");
        req.put("network", new GenericData.EnumSymbol(req.getSchema().getField("network").schema(), "NVLINK_SWITCH"));
        try (KafkaProducer<byte[], byte[]> producer = rawProducer()) {
            producer.send(new ProducerRecord<>(topic, job.getBytes(StandardCharsets.UTF_8), wire(id, newer, command))).get();
        }
        final PlacementDecision d = decisions.await(x -> x.getJobId().equals(job), WAIT, "decision of " + job);
        assertThat(d.getOutcome()).as(d.getMessage()).isEqualTo(DecisionOutcome.REJECTED);
        assertThat(d.getReasonCode()).isEqualTo("UNKNOWN_VALUE");
        assertThat(d.getMessage()).contains("network").contains("INFINIBAND");
    }

    @Test
    @Order(4)
    void anUndecodableRecordIsDeadLetteredNamingWhereItWasWritten() throws Exception {
        final String topic = catalog.name(Topic.JOBS);
        final RecordMetadata written;
        try (KafkaProducer<byte[], byte[]> producer = rawProducer()) {
            written = producer.send(new ProducerRecord<>(topic, "plain-json".getBytes(StandardCharsets.UTF_8),
                    "{\"jobId\": \"plain-json\"}".getBytes(StandardCharsets.UTF_8))).get();
        }
        final String where = topic + "-" + written.partition() + "@" + written.offset();
        final ConsumerRecord<byte[], byte[]> dead = awaitDeadLetter(r -> "plain-json".equals(key(r)));
        assertThat(header(dead, "gpupool.dlq.error.message")).contains("cannot decode record at " + where)
                .contains("WRONG_MAGIC_BYTE");
        assertThat(header(dead, "gpupool.dlq.topic") + "-" + header(dead, "gpupool.dlq.partition") + "@"
                + header(dead, "gpupool.dlq.offset")).isEqualTo(where);
    }

    @Test
    @Order(5)
    void confluentsJavaScriptSerdeWithKafkajs() throws Exception {
        run(InteropClient.node());
    }

    @Test
    @Order(6)
    void debiansConfluentKafkaForPython() throws Exception {
        run(InteropClient.python());
    }

    @Test
    @Order(7)
    void theSchedulerWritesLz4AndTheBrokerStoresWhatOtherClientsReadAsGzip() throws Exception {
        // the journal keeps the producer's codec; decisions and node commands are re-encoded (the catalog's
        // compression.type=gzip), and kafkajs read them above
        final Path data = new BrokerLayout(stack.dataDir()).logDirs();
        assertThat(StoredCodecs.of(data, catalog.name(Topic.JOURNAL))).containsExactly("lz4");
        assertThat(StoredCodecs.of(data, catalog.name(Topic.DECISIONS))).containsExactly("gzip");
        assertThat(StoredCodecs.of(data, catalog.name(Topic.NODE_COMMANDS))).containsExactly("gzip");
    }

    // ---- helpers

    private void run(final InteropClient client) throws Exception {
        client.run(InteropClient.environment(stack.bootstrapServers(), stack.requireRegistryUrl(), prefix,
                prefix + "-" + client.name())).assertAllPass("submit", "dlq");
    }

    private ConsumerRecord<byte[], byte[]> awaitDeadLetter(final java.util.function.Predicate<ConsumerRecord<byte[], byte[]>> match) {
        final String dlq = catalog.name(Topic.DLQ);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("dlq")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            final List<TopicPartition> parts = c.partitionsFor(dlq).stream()
                    .map(i -> new TopicPartition(dlq, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            final List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
            Awaitility.await("a dead letter").atMost(WAIT).pollDelay(Duration.ZERO).until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (match.test(r)) {
                        found.add(r);
                    }
                });
                return !found.isEmpty();
            });
            return found.get(0);
        }
    }

    private KafkaProducer<byte[], byte[]> rawProducer() {
        return new KafkaProducer<>(stack.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static JobRequest.Builder request(final int gpus) {
        return JobRequest.newBuilder().setName("interop").setTenant("interop").setPool(PipelineParts.POOL)
                .setGpusPerNode(gpus).setSimulatedRuntimeMillis(60_000L);
    }

    /** The Confluent wire format of an Avro string: what a Confluent serializer writes for a String key. */
    private static byte[] avroString(final int schemaId, final String s) throws IOException {
        return wire(schemaId, Schema.create(Schema.Type.STRING), s);
    }

    private static byte[] wire(final int schemaId, final Schema schema, final Object datum) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(WireFormat.MAGIC_BYTE);
        out.write(ByteBuffer.allocate(4).putInt(schemaId).array());
        final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<>(schema).write(datum, enc);
        enc.flush();
        return out.toByteArray();
    }

    private static String key(final ConsumerRecord<byte[], byte[]> r) {
        return r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
    }

    private static String header(final ConsumerRecord<byte[], byte[]> r, final String name) {
        final var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
