package io.gpupool.localstack;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The stack's Schema-Registry-compatible server, kept behind one small class so the stack's
 * start and stop order lives in {@link LocalStack} alone.
 */
final class StackRegistry implements AutoCloseable {

    private final AutoCloseable server;
    private final Optional<String> url;

    private StackRegistry(final AutoCloseable server, final Optional<String> url) {
        this.server = server;
        this.url = url;
    }

    static StackRegistry start(final Path dataDir, final String bootstrapServers, final int port) {
        // The registry server (io.gpupool.localstack.registry) is being written in issue 2 by another
        // engineer; until it lands the stack runs without one and reports no registry URL.
        return new StackRegistry(() -> { }, Optional.empty());
    }

    Optional<String> url() {
        return url;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (Exception e) {
            throw new IllegalStateException("the schema registry did not stop cleanly: " + e.getMessage(), e);
        }
    }
}
