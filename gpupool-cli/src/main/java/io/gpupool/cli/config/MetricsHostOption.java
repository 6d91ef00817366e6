package io.gpupool.cli.config;

import io.gpupool.metrics.MetricsServer;
import picocli.CommandLine.Option;

/**
 * The {@code --metrics-host ADDRESS} flag of the node agents (collector, sink). Loopback by default:
 * /metrics tells who runs what where, so it reaches other machines only when asked for
 * ({@code --metrics-host 0.0.0.0}, as docker-compose.yml does for its Prometheus).
 */
public final class MetricsHostOption {

    @Option(names = "--metrics-host", paramLabel = "ADDRESS", defaultValue = MetricsServer.LOOPBACK,
            description = "Address /metrics listens on: 127.0.0.1 (default, this machine only), 0.0.0.0 (every interface)"
                    + " or one interface's address.")
    String host;

    public String host() {
        return host;
    }
}
