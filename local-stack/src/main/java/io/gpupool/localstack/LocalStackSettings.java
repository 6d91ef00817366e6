package io.gpupool.localstack;

import io.gpupool.localstack.broker.BrokerSettings;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How to run the local stack.
 *
 * @param broker       the broker's settings (its data directory is the stack's)
 * @param registryPort the registry's HTTP port, or 0 for the last one when free, else any free port
 */
public record LocalStackSettings(BrokerSettings broker, int registryPort) {

    public LocalStackSettings {
        Objects.requireNonNull(broker, "broker");
        if (registryPort < 0 || registryPort > 65535) {
            throw new IllegalArgumentException("registry port must be 0 (choose a free one) or 1..65535, got " + registryPort);
        }
    }

    public static LocalStackSettings defaults(final Path dataDir) {
        return new LocalStackSettings(BrokerSettings.defaults(dataDir), 0);
    }

    public Path dataDir() {
        return broker.dataDir();
    }

    public LocalStackSettings withBroker(final BrokerSettings newBroker) {
        return new LocalStackSettings(newBroker, registryPort);
    }

    public LocalStackSettings withRegistryPort(final int port) {
        return new LocalStackSettings(broker, port);
    }
}
