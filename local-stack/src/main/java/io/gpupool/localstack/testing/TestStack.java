package io.gpupool.localstack.testing;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The shared test stack as a test sees it: where the broker and the registry are, and client
 * configs to reach them. Tests share one broker, so each should use its own topics
 * ({@link #uniqueName}).
 */
public final class TestStack {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final String bootstrapServers;
    private final Optional<String> registryUrl;
    private final Path dataDir;

    public TestStack(final String bootstrapServers, final Optional<String> registryUrl, final Path dataDir) {
        this.bootstrapServers = bootstrapServers;
        this.registryUrl = registryUrl;
        this.dataDir = dataDir;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The Schema-Registry-compatible server's base URL; empty when the stack runs without one. */
    public Optional<String> registryUrl() {
        return registryUrl;
    }

    /** The registry URL, failing with a clear message when the stack has none. */
    public String requireRegistryUrl() {
        return registryUrl.orElseThrow(() -> new IllegalStateException("the test stack runs without a schema registry"));
    }

    public Path dataDir() {
        return dataDir;
    }

    /** A topic or group name no other test in this JVM uses, e.g. {@code orders-7}. */
    public String uniqueName(final String prefix) {
        return prefix + "-" + NAMES.incrementAndGet();
    }

    public Properties adminConfig() {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return p;
    }

    /** Idempotent producer with acks=all: what the pipeline uses. */
    public Properties producerConfig() {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return p;
    }

    /** A consumer in its own group reading from the beginning, seeing only committed records. */
    public Properties consumerConfig(final String groupId) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return p;
    }

    @Override
    public String toString() {
        return "TestStack[" + bootstrapServers + ", registry " + registryUrl.orElse("none") + ", " + dataDir + "]";
    }
}
