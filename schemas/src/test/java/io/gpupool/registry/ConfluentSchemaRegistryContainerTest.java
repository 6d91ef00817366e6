package io.gpupool.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.JobCancel;
import io.gpupool.serde.SpecificAvroSerde;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * Our client and serdes against the real Confluent Schema Registry (and the apache/kafka image),
 * the server our client must match. Runs only where Docker is present; skipped otherwise.
 */
@Testcontainers(disabledWithoutDocker = true)
class ConfluentSchemaRegistryContainerTest {
    private static final Network NETWORK = Network.newNetwork();

    @Container
    private static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.0")
            .withNetwork(NETWORK).withListener("kafka:19092");

    @Container
    private static final GenericContainer<?> REGISTRY = new GenericContainer<>("confluentinc/cp-schema-registry:7.9.0")
            .withNetwork(NETWORK).dependsOn(KAFKA).withExposedPorts(8081)
            .withEnv("SCHEMA_REGISTRY_HOST_NAME", "schema-registry")
            .withEnv("SCHEMA_REGISTRY_LISTENERS", "http://0.0.0.0:8081")
            .withEnv("SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS", "PLAINTEXT://kafka:19092")
            .waitingFor(Wait.forHttp("/subjects").forStatusCode(200).withStartupTimeout(Duration.ofMinutes(3)));

    private static final Schema V1 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Job\","
            + "\"namespace\":\"t\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}");
    private static final Schema V2 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Job\","
            + "\"namespace\":\"t\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
            + "{\"name\":\"gpus\",\"type\":\"int\",\"default\":1}]}");
    private static final Schema REQUIRED = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Job\","
            + "\"namespace\":\"t\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
            + "{\"name\":\"tenant\",\"type\":\"string\"}]}");

    private static String url() {
        return "http://" + REGISTRY.getHost() + ":" + REGISTRY.getMappedPort(8081);
    }

    @Test
    void clientSpeaksToConfluent() {
        final SchemaRegistryClient client = SchemaRegistryClient.of(url());
        final int id1 = client.register("tc-jobs-value", V1);
        final int id2 = client.register("tc-jobs-value", V2);
        assertThat(id2).isNotEqualTo(id1);
        assertThat(SchemaRegistryClient.of(url()).lookup("tc-jobs-value", V2).version()).isEqualTo(2);
        assertThat(SchemaRegistryClient.of(url()).schemaById(id1)).isEqualTo(V1);
        assertThat(client.latest("tc-jobs-value").id()).isEqualTo(id2);
        assertThat(client.version("tc-jobs-value", 1).id()).isEqualTo(id1);
        assertThat(client.testCompatibility("tc-jobs-value", REQUIRED).isCompatible()).isFalse();
        assertThatThrownBy(() -> client.register("tc-jobs-value", REQUIRED))
                .isInstanceOfSatisfying(IncompatibleSchemaException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(409));
        assertThatThrownBy(() -> client.latest("tc-missing-value")).isInstanceOf(SubjectNotFoundException.class);
        assertThatThrownBy(() -> client.version("tc-jobs-value", 9)).isInstanceOf(VersionNotFoundException.class);
        assertThatThrownBy(() -> client.lookup("tc-jobs-value", REQUIRED)).isInstanceOf(SchemaNotFoundException.class);
        assertThatThrownBy(() -> client.schemaById(99_999)).isInstanceOf(SchemaNotFoundException.class);
        assertThat(client.globalCompatibility()).isEqualTo(CompatibilityLevel.BACKWARD);
        assertThat(client.subjectCompatibility("tc-jobs-value")).isEmpty();
        client.setSubjectCompatibility("tc-jobs-value", CompatibilityLevel.NONE);
        assertThat(client.subjectCompatibility("tc-jobs-value")).contains(CompatibilityLevel.NONE);
        client.register("tc-jobs-value", REQUIRED);
    }

    @Test
    void serdeRoundTripsThroughConfluentAndKafka() throws Exception {
        final String topic = "tc-cancel";
        final SpecificAvroSerde<JobCancel> serde = SpecificAvroSerde.forValues(JobCancel.class,
                Map.of("schema.registry.url", url()));
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.getBootstrapServers());
        try (KafkaProducer<String, JobCancel> producer = new KafkaProducer<>(p, new StringSerializer(),
                serde.serializer())) {
            producer.send(new ProducerRecord<>(topic, "job-1", new JobCancel("user asked"))).get();
        }
        final int id = SchemaRegistryClient.of(url()).lookup(topic + "-value", JobCancel.getClassSchema()).id();
        final Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.getBootstrapServers());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "tc");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            final List<ConsumerRecord<String, byte[]>> got = new ArrayList<>();
            await("the record").atMost(Duration.ofSeconds(60)).pollInSameThread().pollDelay(Duration.ZERO).until(() -> {
                consumer.poll(Duration.ofMillis(500)).forEach(got::add);
                return !got.isEmpty();
            });
            assertThat(got).hasSize(1);
            final byte[] bytes = got.get(0).value();
            assertThat(bytes[0]).isEqualTo((byte) 0);
            assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(id);
            assertThat(serde.deserializer().deserialize(topic, bytes).getReason()).isEqualTo("user asked");
        }
    }
}
