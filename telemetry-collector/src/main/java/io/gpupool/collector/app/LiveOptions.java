package io.gpupool.collector.app;

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
 */
public record LiveOptions(String nodeId, String pool, String source, String nvidiaSmi, URI dcgmUrl, Path sysfsRoot,
        String kernelLog, String topology, Duration interval, String bootstrapServers, String registryUrl,
        int metricsPort, int bufferRecords, Map<String, String> labels) {
}
