package io.gpupool.collector.app;

import io.gpupool.collector.fabric.FabricMap;
import io.gpupool.collector.fabric.TopologySpec;
import io.gpupool.collector.kernel.FileTailSource;
import io.gpupool.collector.kernel.LineSource;
import io.gpupool.collector.kernel.StreamLineSource;
import io.gpupool.collector.kernel.XidMonitor;
import io.gpupool.collector.live.CollectorLoop;
import io.gpupool.collector.live.DcgmHttpSource;
import io.gpupool.collector.live.GpuSource;
import io.gpupool.collector.live.NodeCollector;
import io.gpupool.collector.live.NvidiaSmiCommand;
import io.gpupool.collector.metrics.CollectorMetrics;
import io.gpupool.metrics.MetricsServer;
import io.gpupool.collector.nvidiasmi.TopoMatrix;
import io.gpupool.collector.publish.PublisherTopics;
import io.gpupool.collector.publish.TelemetryPublisher;
import io.gpupool.collector.sysfs.InfinibandSysfsReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running collector on one node: sources, poll loop, publisher, metrics server. */
public final class LiveCollector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LiveCollector.class);

    private final TelemetryPublisher publisher;
    private final CollectorLoop loop;
    private final MetricsServer metricsServer;
    private final XidMonitor xids;
    private final CollectorMetrics metrics;

    private LiveCollector(final TelemetryPublisher publisher, final CollectorLoop loop, final MetricsServer metricsServer,
            final XidMonitor xids, final CollectorMetrics metrics) {
        this.publisher = publisher;
        this.loop = loop;
        this.metricsServer = metricsServer;
        this.xids = xids;
        this.metrics = metrics;
    }

    public static LiveCollector start(final LiveOptions o) throws IOException, InterruptedException {
        return start(o, PublisherTopics.defaults());
    }

    public static LiveCollector start(final LiveOptions o, final PublisherTopics topics) throws IOException, InterruptedException {
        final GpuSource gpu;
        TopoMatrix topo = null;
        switch (o.source()) {
            case "nvidia-smi": {
                final NvidiaSmiCommand smi = new NvidiaSmiCommand(o.nvidiaSmi(), Duration.ofSeconds(10));
                gpu = smi;
                try {
                    topo = smi.topology();
                } catch (IOException | RuntimeException e) {
                    LOG.warn("no NVLink/PCIe placement: nvidia-smi topo -m failed: {}", e.getMessage());
                }
                break;
            }
            case "dcgm":
                if (o.dcgmUrl() == null) {
                    throw new IllegalArgumentException("--source dcgm needs --dcgm-url, e.g. http://localhost:9400/metrics");
                }
                gpu = new DcgmHttpSource(o.dcgmUrl(), Duration.ofSeconds(5));
                break;
            case "none":
                gpu = null;
                break;
            default:
                throw new IllegalArgumentException("unknown --source '" + o.source() + "': use nvidia-smi, dcgm or none (or simulated)");
        }
        final FabricMap fabric = o.topology() == null ? null : TopologySpec.load(o.topology());
        final XidMonitor xids = xidMonitor(o.kernelLog());
        final InfinibandSysfsReader sysfs = o.sysfsRoot() == null ? null : new InfinibandSysfsReader(o.sysfsRoot());
        final NodeCollector collector = new NodeCollector(o.nodeId(), o.pool(), gpu, xids, sysfs, topo, fabric,
                o.labels(), o.interval().toMillis());
        final CollectorMetrics metrics = new CollectorMetrics();
        final TelemetryPublisher publisher = TelemetryPublisher.connect(o.bootstrapServers(), o.clientProperties(),
                o.registryUrl(), topics, o.bufferRecords());
        metrics.bindPublisher(publisher);
        publisher.awaitReady();
        final MetricsServer server = o.metricsPort() < 0 ? null : MetricsServer.start(metrics.registry(), o.metricsHost(), o.metricsPort());
        final CollectorLoop loop = new CollectorLoop(collector, publisher, metrics, o.interval(), Clock.systemUTC());
        loop.start();
        return new LiveCollector(publisher, loop, server, xids, metrics);
    }

    static XidMonitor xidMonitor(final String kernelLog) throws IOException {
        if (kernelLog == null || kernelLog.equals("none")) {
            return null;
        }
        final LineSource lines;
        switch (kernelLog) {
            case "kmsg": {
                final Path kmsg = Path.of("/dev/kmsg");
                if (!Files.isReadable(kmsg)) {
                    LOG.warn("/dev/kmsg is not readable: no Xid source (run as root, or use --kernel-log journal)");
                    return null;
                }
                lines = StreamLineSource.device(kmsg);
                break;
            }
            case "journal":
                lines = StreamLineSource.process(List.of("journalctl", "-k", "-f", "-n", "0", "-o", "short-iso"));
                break;
            default:
                lines = new FileTailSource(Path.of(kernelLog), true);
        }
        return new XidMonitor(lines);
    }

    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    public TelemetryPublisher publisher() {
        return publisher;
    }

    public CollectorMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() {
        loop.close();
        publisher.close();
        if (xids != null) {
            xids.close();
        }
        if (metricsServer != null) {
            metricsServer.close();
        }
    }
}
