package io.gpupool.collector.app;

import io.gpupool.metrics.MetricsServer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of a live collector on a GPU node.
 *
 * @param source            "nvidia-smi" or "dcgm" (GPU source), or "none" for fabric ports only
 * @param nvidiaSmi         nvidia-smi binary to run
 * @param dcgmUrl           dcgm-exporter /metrics URL, for source "dcgm"
 * @param sysfsRoot         /sys/class/infiniband or a copy; null to skip fabric ports
 * @param kernelLog         "kmsg", "journal", "none", or a path to a log file to follow
 * @param topology          KIND:FILE fabric description, or null
 * @param metricsPort       port of /metrics; 0 = any free port, negative = no metrics server
 * @param bufferRecords     bounded buffer size while Kafka is unreachable
 * @param clientProperties  extra Kafka and registry client settings (security.protocol, sasl.*, ssl.*,
 *                          schema.registry.ssl.*, basic.auth.*), over the publisher's own
 * @param metricsHost       the address /metrics listens on: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)
 */
public record LiveOptions(String nodeId, String pool, String source, String nvidiaSmi, URI dcgmUrl, Path sysfsRoot,
        String kernelLog, String topology, Duration interval, String bootstrapServers, String registryUrl,
        int metricsPort, int bufferRecords, Map<String, String> labels, Map<String, Object> clientProperties,
        String metricsHost) {

    public LiveOptions {
        clientProperties = Map.copyOf(clientProperties);
    }

    /** Without client settings of its own, /metrics on loopback only. */
    public LiveOptions(final String nodeId, final String pool, final String source, final String nvidiaSmi, final URI dcgmUrl,
            final Path sysfsRoot, final String kernelLog, final String topology, final Duration interval,
            final String bootstrapServers, final String registryUrl, final int metricsPort, final int bufferRecords,
            final Map<String, String> labels) {
        this(nodeId, pool, source, nvidiaSmi, dcgmUrl, sysfsRoot, kernelLog, topology, interval, bootstrapServers, registryUrl,
                metricsPort, bufferRecords, labels, Map.of(), MetricsServer.LOOPBACK);
    }
}
