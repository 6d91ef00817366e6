package io.gpupool.localstack;

import io.gpupool.localstack.registry.RegistryRole;
import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.localstack.secure.StackSecurity;
import io.gpupool.localstack.broker.Ports;
import io.gpupool.localstack.registry.SchemaRegistryServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;

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

    /**
     * @param security for a secured stack: HTTPS with the stack's certificate, and basic auth with the admin as
     *                 the one user who may change anything (every other principal reads)
     */
    static StackRegistry start(final Path dataDir, final String bootstrapServers, final int wantedPort,
            final Optional<StackSecurity> security) {
        final Path portFile = dataDir.resolve("registry").resolve("port");
        final int port = wantedPort > 0 ? wantedPort : Ports.preferred(previousPort(portFile));
        final SchemaRegistryServer.Builder builder = SchemaRegistryServer.builder()
                .kafka(bootstrapServers, security.map(s -> s.clientConfig(StackPrincipal.ADMIN)).orElseGet(Properties::new))
                .host(HOST).port(port)
                // Over the producer's request timeout plus linger, which Kafka requires of the delivery timeout.
                .kafkaTimeout(KAFKA_TIMEOUT);
        security.ifPresent(s -> {
            builder.tls(s.registryContext());
            for (final StackPrincipal p : StackPrincipal.values()) {
                builder.basicAuth(p.user(), s.password(p), p == StackPrincipal.ADMIN ? RegistryRole.ADMIN : RegistryRole.READ);
            }
            for (final String tenant : s.tenants()) {
                builder.basicAuth(StackSecurity.tenantUser(tenant), s.tenantPassword(tenant), RegistryRole.READ);
            }
        });
        final SchemaRegistryServer server = builder.start();
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
