package io.gpupool.localstack.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpupool.registry.CompatibilityLevel;
import io.gpupool.registry.RegistryErrors;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's durable log: a compacted, single-partition Kafka topic (default {@code _schemas})
 * in the record layout Confluent Schema Registry uses (JSON key with keytype SCHEMA or CONFIG),
 * so ids and versions survive restarts. One writer is assumed: the log is read once at start.
 */
final class KafkaSchemaLog implements SchemaLog {
    static final String DEFAULT_TOPIC = "_schemas";
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSchemaLog.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String topic;
    private final Duration timeout;
    private final Properties common;
    private final KafkaProducer<String, String> producer;

    KafkaSchemaLog(final String bootstrapServers, final String topic, final Duration timeout) {
        this(bootstrapServers, new Properties(), topic, timeout);
    }

    /** @param clientProperties Kafka client settings of the registry's own clients (security, for a secured broker) */
    KafkaSchemaLog(final String bootstrapServers, final Properties clientProperties, final String topic, final Duration timeout) {
        this.topic = topic;
        this.timeout = timeout;
        this.common = new Properties();
        common.putAll(clientProperties);
        common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        ensureTopic();
        final Properties p = new Properties();
        p.putAll(common);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis());
        // Each registration waits for its write: no batching delay, and Kafka's rule
        // delivery.timeout >= linger + request.timeout.
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout.toMillis() + 1000);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        this.producer = new KafkaProducer<>(p);
    }

    private void ensureTopic() {
        final Properties p = new Properties();
        p.putAll(common);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        final Admin admin = Admin.create(p);
        try {
            // Replication left to the broker default: 1 on the local stack, more on a real cluster.
            final NewTopic nt = new NewTopic(topic, Optional.of(1), Optional.empty())
                    .configs(Map.of("cleanup.policy", "compact"));
            admin.createTopics(List.of(nt)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (final ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create the registry topic " + topic + " on Kafka at "
                        + common.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) + ": " + e.getCause().getMessage(),
                        e.getCause());
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating " + topic, e);
        } catch (final TimeoutException e) {
            throw new IllegalStateException("Kafka at " + common.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)
                    + " did not answer within " + timeout.toSeconds() + " s while creating " + topic, e);
        } finally {
            // Without a bound, close() waits for the abandoned call up to the API timeout.
            admin.close(Duration.ZERO);
        }
    }

    @Override
    public void appendSchema(final String subject, final int version, final int id, final Schema schema,
                             final boolean deleted) {
        final ObjectNode value = JSON.createObjectNode();
        value.put("subject", subject);
        value.put("version", version);
        value.put("id", id);
        value.put("schema", schema.toString());
        value.put("deleted", deleted);
        write(schemaKey(subject, version), value.toString());
    }

    /** As Confluent's registry does: a tombstone on the version's key, which compaction then drops. */
    @Override
    public void appendRemoval(final String subject, final int version) {
        write(schemaKey(subject, version), null);
    }

    private static String schemaKey(final String subject, final int version) {
        final ObjectNode key = JSON.createObjectNode();
        key.put("keytype", "SCHEMA");
        key.put("subject", subject);
        key.put("version", version);
        key.put("magic", 1);
        return key.toString();
    }

    @Override
    public void appendConfig(final String subjectOrNull, final CompatibilityLevel levelOrNull) {
        final ObjectNode key = JSON.createObjectNode();
        key.put("keytype", "CONFIG");
        if (subjectOrNull == null) {
            key.putNull("subject");
        } else {
            key.put("subject", subjectOrNull);
        }
        key.put("magic", 0);
        String value = null;
        if (levelOrNull != null) {
            final ObjectNode v = JSON.createObjectNode();
            v.put("compatibilityLevel", levelOrNull.name());
            value = v.toString();
        }
        write(key.toString(), value);
    }

    private void write(final String key, final String value) {
        try {
            producer.send(new ProducerRecord<>(topic, 0, key, value)).get(timeout.toMillis() + 2000, TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryError(500, RegistryErrors.BACKEND_ERROR, "interrupted while storing in " + topic);
        } catch (final ExecutionException | TimeoutException e) {
            throw new RegistryError(500, RegistryErrors.BACKEND_ERROR, "could not store in Kafka topic " + topic
                    + ": " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
        }
    }

    @Override
    public void replay(final SchemaStore store) {
        final Properties p = new Properties();
        p.putAll(common);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        final TopicPartition tp = new TopicPartition(topic, 0);
        int applied = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final long end = consumer.endOffsets(List.of(tp), timeout).get(tp);
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (consumer.position(tp, timeout) < end) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " did not reach offset " + end
                            + " within " + timeout.toSeconds() + " s");
                }
                for (final ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (apply(store, r)) {
                        applied++;
                    }
                }
            }
        }
        LOG.info("schema registry: replayed {} records from {}", applied, topic);
    }

    /** Applies one log record; a record it cannot read is skipped with a warning, never fatal. */
    static boolean apply(final SchemaStore store, final ConsumerRecord<String, String> r) {
        try {
            final JsonNode key = JSON.readTree(r.key());
            final String type = key.path("keytype").asText("");
            if (type.equals("SCHEMA")) {
                if (r.value() == null) {
                    store.removeVersion(key.get("subject").asText(), key.get("version").asInt());
                    return true;
                }
                final JsonNode v = JSON.readTree(r.value());
                final Schema schema = new Schema.Parser().parse(v.get("schema").asText());
                store.applySchema(v.get("subject").asText(), v.get("version").asInt(), v.get("id").asInt(), schema,
                        v.path("deleted").asBoolean(false));
                return true;
            }
            if (type.equals("CONFIG")) {
                final String subject = key.get("subject") == null || key.get("subject").isNull()
                        ? null : key.get("subject").asText();
                final CompatibilityLevel level = r.value() == null ? null
                        : CompatibilityLevel.parse(JSON.readTree(r.value()).get("compatibilityLevel").asText());
                if (subject == null && level == null) {
                    return false;
                }
                store.applyConfig(subject, level);
                return true;
            }
            return false;
        } catch (final Exception e) {
            LOG.warn("schema registry: skipping unreadable record at {}-{}@{}: {}", r.topic(), r.partition(),
                    r.offset(), e.toString());
            return false;
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
