package io.gpupool.localstack.broker;

import java.nio.file.Path;
import java.time.Duration;
import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.localstack.secure.StackSecurity;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * How to run the one local broker.
 *
 * @param dataDir          the stack's data directory; the broker keeps its files under {@code kafka/}
 * @param port             the client (PLAINTEXT) port, or 0 to reuse the last one when free, else any free port
 * @param heap             the child JVM's maximum heap, as the {@code -Xmx} suffix ("512m")
 * @param startupTimeout   how long to wait for the broker to answer before giving up
 * @param shutdownTimeout  how long a SIGTERM may take before the child is killed
 * @param autoCreateTopics whether producing to an unknown topic creates it (Kafka's own default is true)
 * @param security         SASL/SCRAM over TLS with ACLs ({@code gpupool up --secure}), or empty for PLAINTEXT
 */
public record BrokerSettings(
        Path dataDir,
        int port,
        String heap,
        Duration startupTimeout,
        Duration shutdownTimeout,
        boolean autoCreateTopics,
        Optional<StackSecurity> security) {

    public BrokerSettings {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(heap, "heap");
        Objects.requireNonNull(startupTimeout, "startupTimeout");
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        Objects.requireNonNull(security, "security");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 (choose a free one) or 1..65535, got " + port);
        }
        if (!heap.matches("\\d+[kmgKMG]?")) {
            throw new IllegalArgumentException("heap must look like 512m or 1g, got '" + heap + "'");
        }
    }

    /** Defaults for a data directory: a free (or the previous) port, 512 MiB heap, 90 s to start, 30 s to stop. */
    public static BrokerSettings defaults(final Path dataDir) {
        return new BrokerSettings(dataDir.toAbsolutePath().normalize(), 0, "512m",
                Duration.ofSeconds(90), Duration.ofSeconds(30), true, Optional.empty());
    }

    public BrokerSettings withPort(final int newPort) {
        return new BrokerSettings(dataDir, newPort, heap, startupTimeout, shutdownTimeout, autoCreateTopics, security);
    }

    public BrokerSettings withAutoCreateTopics(final boolean enabled) {
        return new BrokerSettings(dataDir, port, heap, startupTimeout, shutdownTimeout, enabled, security);
    }

    public BrokerSettings withHeap(final String newHeap) {
        return new BrokerSettings(dataDir, port, newHeap, startupTimeout, shutdownTimeout, autoCreateTopics, security);
    }

    /** Secured: SASL_SSL, SCRAM users, the StandardAuthorizer. */
    public BrokerSettings withSecurity(final StackSecurity newSecurity) {
        return new BrokerSettings(dataDir, port, heap, startupTimeout, shutdownTimeout, autoCreateTopics, Optional.of(newSecurity));
    }

    /** The admin's client settings for a secured broker; none for a plaintext one. */
    public Properties adminClientProperties() {
        return security.map(s -> s.clientConfig(StackPrincipal.ADMIN)).orElseGet(Properties::new);
    }

    /** Where the broker's own files live inside the data directory. */
    public BrokerLayout layout() {
        return new BrokerLayout(dataDir);
    }
}
