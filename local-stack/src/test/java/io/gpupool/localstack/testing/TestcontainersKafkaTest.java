package io.gpupool.localstack.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.registry.SchemaRegistryServer;
import io.gpupool.localstack.topics.TopicSetupTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The local-stack integration checks against the official {@code apache/kafka} image instead of
 * the child-JVM broker. Runs where Docker is available; elsewhere JUnit reports it as skipped
 * ("No Docker environment available"). The image can be changed with -Dgpupool.kafka.image=...
 */
@Testcontainers(disabledWithoutDocker = true)
class TestcontainersKafkaTest {

    static final String IMAGE = System.getProperty("gpupool.kafka.image", "apache/kafka:4.3.1");

    @Container
    static final KafkaContainer KAFKA = new KafkaContainer(IMAGE)
            // The image's defaults are for one broker already; these make exactly-once explicit.
            .withEnv("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
            .withEnv("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1")
            .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");

    private static TestStack stack(final Optional<String> registryUrl) {
        return new TestStack(KAFKA.getBootstrapServers(), registryUrl, Path.of("."));
    }

    @Test
    void topicsAreCreatedWithTheirConfigs() throws Exception {
        TopicSetupTest.createAndVerify(stack(Optional.empty()));
    }

    @Test
    void exactlyOnceWorks() throws Exception {
        ExactlyOnceTest.check(stack(Optional.empty()));
    }

    @Test
    void theRegistryKeepsItsSchemasInTheContainersKafka() throws Exception {
        final String schema = "{\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"Probe\\\","
                + "\\\"fields\\\":[{\\\"name\\\":\\\"n\\\",\\\"type\\\":\\\"int\\\"}]}\"}";
        final String first;
        try (SchemaRegistryServer registry = SchemaRegistryServer.builder().kafka(KAFKA.getBootstrapServers())
                .host("127.0.0.1").port(0).kafkaTimeout(Duration.ofSeconds(45)).start()) {
            first = post(registry.url() + "/subjects/tc-value/versions", schema);
        }
        try (SchemaRegistryServer again = SchemaRegistryServer.builder().kafka(KAFKA.getBootstrapServers())
                .host("127.0.0.1").port(0).kafkaTimeout(Duration.ofSeconds(45)).start()) {
            assertThat(post(again.url() + "/subjects/tc-value/versions", schema)).isEqualTo(first);
        }
    }

    private static String post(final String url, final String body) throws Exception {
        final HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }
}
