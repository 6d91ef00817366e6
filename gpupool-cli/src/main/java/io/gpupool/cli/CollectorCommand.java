package io.gpupool.cli;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.ConfigFileOption;
import io.gpupool.cli.config.ConfigLayers;
import io.gpupool.cli.config.MetricsHostOption;
import io.gpupool.cli.config.DurationConverter;
import io.gpupool.collector.app.FleetCollector;
import io.gpupool.collector.app.LiveCollector;
import io.gpupool.collector.app.LiveOptions;
import io.gpupool.collector.app.ReplayOutput;
import io.gpupool.collector.fabric.FabricMap;
import io.gpupool.collector.fabric.TopologySpec;
import io.gpupool.collector.live.HostFacts;
import io.gpupool.collector.publish.PublisherStats;
import io.gpupool.collector.publish.PublisherTopics;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.collector.sim.RandomFaults;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code gpupool collector}: a thin adapter over telemetry-collector's dry runs, live collector and simulated fleet. */
@Command(name = "collector", mixinStandardHelpOptions = true,
        description = {
            "Reads GPU and fabric telemetry on a node and publishes NodeInventory, GpuSamples and LinkSamples to Kafka.",
            "Dry runs print, as JSON, the records that would be published and exit:",
            "  gpupool collector --source nvidia-smi --from-file FILE --once --output json   (csv with or without header, or a capture file)",
            "  gpupool collector --source dcgm --from-file SCRAPE --once --output json",
            "  gpupool collector --sysfs-root DIR --once --output json",
            "  gpupool collector --topology ibnetdiscover:FILE --output json          (also slurm:FILE, static:FILE)",
            "Live: gpupool collector [--source nvidia-smi|dcgm|none] [--interval 1s] [--bootstrap-server HOST:PORT]",
            "Simulated fleet: gpupool collector --source simulated --nodes 4096 [--seed N]",
            "On a GPU node, JVM flags -Xmx48m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 keep the collector near 1%% of a core and ~110 MB RSS."})
public final class CollectorCommand implements Callable<Integer> {

    @Option(names = "--source", paramLabel = "SOURCE", defaultValue = "nvidia-smi",
            description = "GPU source: nvidia-smi, dcgm, none (fabric ports only) or simulated (a synthetic fleet). Default ${DEFAULT-VALUE}.")
    String source;

    @Option(names = "--from-file", paramLabel = "FILE", description = "Read saved output of the source instead of polling it (with --once).")
    Path fromFile;

    @Option(names = "--once", description = "Read once, print what would be published, exit.")
    boolean once;

    @Option(names = "--output", paramLabel = "FORMAT", description = "Print what would be published instead of publishing: json (the only format; implied by --once).")
    String output;

    @Option(names = "--sysfs-root", paramLabel = "DIR", description = "The /sys/class/infiniband tree to read (default /sys/class/infiniband when live).")
    Path sysfsRoot;

    @Option(names = "--topology", paramLabel = "KIND:FILE", description = "Fabric description: ibnetdiscover:FILE (ibnetdiscover --ports), slurm:FILE (topology.conf) or static:FILE.")
    String topology;

    @Option(names = "--interval", paramLabel = "TIME", defaultValue = "1s", converter = DurationConverter.class,
            description = "Polling interval (default ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Run for this long, then stop (default: until interrupted).")
    Duration duration;

    @Option(names = "--node-id", paramLabel = "ID", description = "Node id to publish under (default: the hostname).")
    String nodeId;

    @Option(names = "--pool", paramLabel = "POOL", defaultValue = "default", description = "Pool of this node (default ${DEFAULT-VALUE}).")
    String pool;

    @Option(names = "--label", paramLabel = "KEY=VALUE", description = "Node label for the inventory; repeatable.")
    Map<String, String> labels = new LinkedHashMap<>();

    @Option(names = "--nvidia-smi", paramLabel = "PATH", defaultValue = "nvidia-smi", description = "nvidia-smi binary (default ${DEFAULT-VALUE}).")
    String nvidiaSmi;

    @Option(names = "--dcgm-url", paramLabel = "URL", description = "dcgm-exporter metrics URL for --source dcgm, e.g. http://localhost:9400/metrics.")
    URI dcgmUrl;

    @Option(names = "--kernel-log", paramLabel = "WHERE", defaultValue = "kmsg",
            description = "Where Xid errors are read: kmsg (/dev/kmsg), journal (journalctl -k -f), none, or a log file to follow. Default ${DEFAULT-VALUE}.")
    String kernelLog;

    @Option(names = "--registry-url", paramLabel = "URL", description = "Schema Registry URL (default: the local stack's).")
    String registryUrl;

    @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "9402",
            description = "Port of the collector's Prometheus /metrics; 0 = any free port, -1 = none. Default ${DEFAULT-VALUE}.")
    int metricsPort;

    @Mixin
    MetricsHostOption metricsHost;

    @Option(names = "--buffer-records", paramLabel = "N", defaultValue = "20000",
            description = "Records kept while Kafka is unreachable; older telemetry is dropped and counted beyond it. Default ${DEFAULT-VALUE}.")
    int bufferRecords;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "64", description = "Simulated fleet: nodes (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--gpus-per-node", paramLabel = "N", defaultValue = "8", description = "Simulated fleet: GPUs per node (default ${DEFAULT-VALUE}).")
    int gpusPerNode;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "Simulated fleet: random seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--fault-rate", paramLabel = "P", defaultValue = "0",
            description = "Simulated fleet: chance per node per tick of a fault (Xid, overheating, link down or flapping, silence), seeded by --seed. Default ${DEFAULT-VALUE}.")
    double faultRate;

    @Mixin
    ClusterOptions cluster;

    @Mixin
    ConfigFileOption configFile;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final PrintWriter out = spec.commandLine().getOut();
        if (output != null && !output.equals("json")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--output " + output + " is not supported: use --output json");
        }
        if (!source.matches("nvidia-smi|dcgm|none|simulated")) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--source " + source + " is unknown: use nvidia-smi, dcgm, none or simulated");
        }
        final String node = nodeId != null ? nodeId : HostFacts.hostname();
        final Instant now = Instant.now();
        try {
            if (fromFile != null || once || output != null) {
                out.println(dryRun(node, now));
                out.flush();
                return 0;
            }
        } catch (IllegalArgumentException | UncheckedIOException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        return source.equals("simulated") ? runFleet(out) : runLive(out, node);
    }

    private String dryRun(final String node, final Instant now) throws Exception {
        if (fromFile != null && sysfsRoot != null) {
            throw new IllegalArgumentException("--from-file reads GPU output and --sysfs-root a fabric tree: give one of them per dry run");
        }
        if (fromFile != null) {
            switch (source) {
                case "nvidia-smi":
                    return ReplayOutput.nvidiaSmiFile(fromFile, node, pool, now);
                case "dcgm":
                    return ReplayOutput.dcgmFile(fromFile, node, pool, now);
                default:
                    throw new IllegalArgumentException("--from-file works with --source nvidia-smi or --source dcgm, not " + source);
            }
        }
        final FabricMap fabric = topology == null ? null : TopologySpec.load(topology);
        if (sysfsRoot != null) {
            return ReplayOutput.sysfs(sysfsRoot, node, pool, fabric, now);
        }
        if (fabric != null) {
            return ReplayOutput.topology(fabric);
        }
        throw new IllegalArgumentException("a dry run (--once / --output json) needs something to read: --from-file FILE, --sysfs-root DIR or --topology KIND:FILE");
    }

    private int runLive(final PrintWriter out, final String node) throws Exception {
        final Path sysfs = sysfsRoot != null ? sysfsRoot : Path.of("/sys/class/infiniband");
        final LiveOptions options = new LiveOptions(node, pool, source, nvidiaSmi, dcgmUrl, sysfs, kernelLog, topology,
                interval, cluster.bootstrapServers(), registryUrl(), metricsPort, bufferRecords, labels, cluster.clientMap(),
                metricsHost.host());
        try (LiveCollector collector = LiveCollector.start(options, topics())) {
            out.printf("collector for node %s polling %s every %d ms; metrics on port %d%n", node, source,
                    interval.toMillis(), collector.metricsPort());
            out.flush();
            waitForEnd();
            final PublisherStats stats = collector.publisher().stats();
            out.printf("sent=%d dropped=%d buffered=%d%n", stats.sent(), stats.dropped(), stats.buffered());
        }
        return 0;
    }

    private int runFleet(final PrintWriter out) throws Exception {
        if (faultRate < 0 || faultRate > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--fault-rate " + faultRate + " is not a probability: use 0 to 1, e.g. 0.001");
        }
        final FleetSpec fleetSpec = new FleetSpec(pool, nodes, gpusPerNode, 8, 32, 8, Math.max(1, (nodes + 255) / 256 / 4), seed);
        try (FleetCollector fleet = FleetCollector.start(fleetSpec, interval, cluster.bootstrapServers(),
                cluster.clientMap(), registryUrl(), topics(), Math.max(bufferRecords, nodes * 10), metricsHost.host(), metricsPort)) {
            if (faultRate > 0) {
                fleet.fleet().randomFaults(new RandomFaults(seed, faultRate, 30));
            }
            out.printf("simulated fleet: %d nodes x %d GPUs every %d ms; metrics on port %d%n", nodes, gpusPerNode,
                    interval.toMillis(), fleet.metricsPort());
            out.flush();
            waitForEnd();
            final PublisherStats stats = fleet.publisher().stats();
            out.printf("ticks=%d late_ticks=%d skipped_ticks=%d max_tick_ms=%d sent=%d dropped=%d%n", fleet.runner().ticks(),
                    fleet.runner().lateTicks(), fleet.runner().skippedTicks(), fleet.runner().maxTick().toMillis(),
                    stats.sent(), stats.dropped());
        }
        return 0;
    }

    /** Topic names: the defaults, renamed by {@code gpupool.topic.*} entries of --config. */
    private PublisherTopics topics() {
        return PublisherTopics.from(TopicCatalog.defaults().withOverrides(ConfigLayers.of(spec).fileEntries()));
    }

    private String registryUrl() {
        if (registryUrl != null) {
            return registryUrl;
        }
        return cluster.dataDir().running().flatMap(StackDescriptor::registryUrl).orElseThrow(() -> new CommandLine.PicocliException(
                "no schema registry known: pass --registry-url URL, or start the local stack with `gpupool up`"));
    }

    private void waitForEnd() throws InterruptedException {
        final CountDownLatch stop = new CountDownLatch(1);
        final Thread hook = new Thread(stop::countDown);
        Runtime.getRuntime().addShutdownHook(hook);
        if (duration != null) {
            stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);
            Runtime.getRuntime().removeShutdownHook(hook);
        } else {
            stop.await();
        }
    }
}
