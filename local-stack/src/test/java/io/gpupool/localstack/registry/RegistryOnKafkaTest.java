package io.gpupool.localstack.registry;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.CompatibilityLevel;
import io.gpupool.registry.IncompatibleSchemaException;
import io.gpupool.registry.SchemaRegistryClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The registry keeping its schemas in a real broker's compacted topic. */
@ExtendWith(LocalStackExtension.class)
class RegistryOnKafkaTest {

    @Test
    void idsVersionsAndLevelsSurviveARestart(final TestStack stack) throws Exception {
        final String topic = stack.uniqueName("_schemas-restart");
        try (SchemaRegistryServer first = SchemaRegistryServer.builder().kafka(stack.bootstrapServers())
                .topic(topic).port(0).start()) {
            final SchemaRegistryClient c = SchemaRegistryClient.of(first.url());
            assertThat(c.register("jobs-value", Schemas.V1)).isEqualTo(1);
            assertThat(c.register("jobs-value", Schemas.V2)).isEqualTo(2);
            assertThat(c.register("other-value", Schemas.RETYPED)).isEqualTo(3);
            c.setSubjectCompatibility("jobs-value", CompatibilityLevel.FULL);
            c.setGlobalCompatibility(CompatibilityLevel.FORWARD);
        }
        // A record the registry cannot read must not stop it from starting.
        final Properties p = stack.producerConfig();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, "not json".getBytes(StandardCharsets.UTF_8),
                    "{".getBytes(StandardCharsets.UTF_8))).get();
        }
        try (SchemaRegistryServer second = SchemaRegistryServer.builder().kafka(stack.bootstrapServers())
                .topic(topic).port(0).start()) {
            final SchemaRegistryClient c = SchemaRegistryClient.of(second.url());
            assertThat(c.schemaById(1)).isEqualTo(Schemas.V1);
            assertThat(c.schemaById(3)).isEqualTo(Schemas.RETYPED);
            assertThat(c.latest("jobs-value").version()).isEqualTo(2);
            assertThat(c.latest("jobs-value").id()).isEqualTo(2);
            assertThat(c.subjectCompatibility("jobs-value")).contains(CompatibilityLevel.FULL);
            assertThat(c.globalCompatibility()).isEqualTo(CompatibilityLevel.FORWARD);
            // FULL still enforced after the restart
            assertThatThrownBy(() -> c.register("jobs-value", Schemas.REQUIRED_FIELD))
                    .isInstanceOf(IncompatibleSchemaException.class);
            // the next id continues after the highest one kept
            assertThat(c.register("new-value", Schemas.ONLY_GPUS)).isEqualTo(4);
            assertThat(c.register("jobs-value", Schemas.V1)).isEqualTo(1);
        }
        try (Admin admin = Admin.create(stack.adminConfig())) {
            final TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            assertThat(d.partitions()).hasSize(1);
            final ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            final ConfigEntry policy = admin.describeConfigs(List.of(r)).all().get().get(r).get("cleanup.policy");
            assertThat(policy.value()).isEqualTo("compact");
        }
    }

    @Test
    void startupFailsClearlyWhenKafkaIsNotThere() {
        assertThatThrownBy(() -> SchemaRegistryServer.builder().kafka("127.0.0.1:1").port(0)
                .kafkaTimeout(Duration.ofSeconds(2)).start())
                .hasMessageContaining("127.0.0.1:1");
    }
}
