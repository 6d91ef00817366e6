package io.gpupool.localstack;

import io.gpupool.localstack.broker.Ports;
import io.gpupool.localstack.registry.SchemaRegistryServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The stack's Schema-Registry-compatible server (schemas kept in the broker's {@code _schemas}
 * topic). Like the broker, it takes the port of its last run in this data directory when free,
 * so a restarted stack keeps its address.
 */
final class StackRegistry implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(45);

    private final SchemaRegistryServer server;

    private StackRegistry(final SchemaRegistryServer server) {
        this.server = server;
    }

    static StackRegistry start(final Path dataDir, final String bootstrapServers, final int wantedPort) {
        final Path portFile = dataDir.resolve("registry").resolve("port");
        final int port = wantedPort > 0 ? wantedPort : Ports.preferred(previousPort(portFile));
        final SchemaRegistryServer server = SchemaRegistryServer.builder()
                .kafka(bootstrapServers).host(HOST).port(port)
                // Over the producer's request timeout plus linger, which Kafka requires of the delivery timeout.
                .kafkaTimeout(KAFKA_TIMEOUT)
                .start();
        try {
            Files.createDirectories(portFile.getParent());
            Files.writeString(portFile, server.port() + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            server.close();
            throw new UncheckedIOException("cannot write " + portFile, e);
        }
        return new StackRegistry(server);
    }

    private static int previousPort(final Path portFile) {
        try {
            return Files.isRegularFile(portFile)
                    ? Integer.parseInt(Files.readString(portFile, StandardCharsets.UTF_8).trim()) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    Optional<String> url() {
        return Optional.of(server.url());
    }

    @Override
    public void close() {
        server.close();
    }
}
