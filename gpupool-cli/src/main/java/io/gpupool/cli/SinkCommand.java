package io.gpupool.cli;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.ConfigFileOption;
import io.gpupool.cli.config.ConfigLayers;
import io.gpupool.cli.config.MetricsHostOption;
import io.gpupool.cli.config.DurationConverter;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.metrics.MetricsServer;
import io.gpupool.sink.RetryPolicy;
import io.gpupool.sink.SinkConfig;
import io.gpupool.sink.SinkRunner;
import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.CommandTemplate;
import io.gpupool.sink.apply.ExecApplier;
import io.gpupool.sink.apply.FileApplier;
import io.gpupool.sink.apply.SimulatedApplier;
import io.gpupool.topics.TopicCatalog;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code gpupool sink}: applies node commands on nodes (exec, file or simulated) and reports job events. */
@Command(name = "sink", mixinStandardHelpOptions = true,
        description = {
            "Applies the scheduler's node commands on the nodes and reports what the jobs do.",
            "Consumes gpupool.node-commands, applies each command once (exec, file or simulated)",
            "and reports APPLIED, STARTED, COMPLETED, FAILED and EVICTED on gpupool.job-events.",
            "Applied command ids are kept in a ledger in --state-dir: a restarted sink applies",
            "nothing twice and adopts the jobs that were running.",
            "With --node NAME it is a node-local agent: it reads only the partition NAME hashes to",
            "(1/partitions of the topic; --all-partitions reads it all) and applies NAME's commands."})
public final class SinkCommand implements Callable<Integer> {

    enum ApplierKind { exec, file, simulated }

    @Mixin
    ClusterOptions cluster;

    @Mixin
    ConfigFileOption configFile;

    @Option(names = "--registry-url", paramLabel = "URL",
            description = "Schema registry. Default: the local stack's in --data-dir.")
    String registryUrl;

    @Option(names = "--applier", defaultValue = "simulated",
            description = "How commands are applied: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
    ApplierKind applier;

    @Option(names = "--node", paramLabel = "NAME", description = "Serve only this node (node-local agent).")
    String node;

    @Option(names = "--all-partitions", description = "With --node: read every partition instead of the node's own.")
    boolean allPartitions;

    @Option(names = "--exec-template", paramLabel = "WORDS", defaultValue = CommandTemplate.COMMAND,
            description = "exec: the command line per job, words split on spaces; {command} {args} {jobId} {node} {gpus}"
                    + " {gpuUuids} {jobName} {tenant} {rank} {decisionId}. E.g. 'docker run --rm --gpus device={gpuUuids}"
                    + " IMAGE {command}' or 'srun -w {node} {command}'. Default: ${DEFAULT-VALUE}.")
    String execTemplate;

    @Option(names = "--grace", paramLabel = "TIME", defaultValue = "30s", converter = DurationConverter.class,
            description = "exec: time between SIGTERM and SIGKILL when a job is evicted or cancelled (default ${DEFAULT-VALUE}).")
    Duration grace;

    @Option(names = "--allocation-dir", paramLabel = "DIR",
            description = "file: where NODE.json allocation files are kept. Default: <state-dir>/allocations.")
    Path allocationDir;

    @Option(names = "--time-scale", paramLabel = "X", defaultValue = "60",
            description = "simulated: how many times faster than real time jobs run (default ${DEFAULT-VALUE}).")
    double timeScale;

    @Option(names = "--default-runtime", paramLabel = "TIME", defaultValue = "10m", converter = DurationConverter.class,
            description = "simulated: runtime of a job without an estimate, before scaling (default ${DEFAULT-VALUE}).")
    Duration defaultRuntime;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Ledger of applied commands and job logs. Default: <data-dir>/sink[-NODE].")
    Path stateDir;

    @Option(names = "--group-id", paramLabel = "ID", description = "Consumer group. Default: gpupool-sink[-NODE].")
    String groupId;

    @Option(names = "--retries", paramLabel = "N", defaultValue = "4",
            description = "Attempts to apply a command before it is reported FAILED (default ${DEFAULT-VALUE}).")
    int attempts;

    @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "0",
            description = "Port of /metrics (0: any free port, -1: none; default ${DEFAULT-VALUE}).")
    int metricsPort;

    @Mixin
    MetricsHostOption metricsHost;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Stop after this long. Default: run until Ctrl-C.")
    Duration duration;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final long began = System.nanoTime();
        final PrintWriter out = spec.commandLine().getOut();
        final Path state = stateDir != null ? stateDir
                : cluster.dataDir().path().resolve(node == null ? "sink" : "sink-" + node);
        SinkConfig config = SinkConfig.defaults(cluster.bootstrapServers(), registry(), state)
                .withTopics(TopicCatalog.defaults().withOverrides(ConfigLayers.of(spec).fileEntries()))
                .withClientProperties(cluster.clientMap())
                .withRetry(new RetryPolicy(attempts, Duration.ofMillis(200), Duration.ofSeconds(5)))
                .withOwnPartitionOnly(!allPartitions);
        if (node != null) {
            config = config.forNode(node);
        }
        if (groupId != null) {
            config = config.withGroupId(groupId);
        }
        final CountDownLatch stop = new CountDownLatch(1);
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                stopped.await(90, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "gpupool-sink-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try (SinkRunner sink = SinkRunner.create(config, applier(state)).start();
             MetricsServer metrics = metricsPort < 0 ? null : serve(sink)) {
            out.printf("gpupool sink: %s applier, %s, commands from %s, ledger %s, %s%n", applier,
                    node == null ? "all nodes" : "node " + node, config.commandsTopic(), state,
                    metrics == null ? "no metrics" : "metrics at http://" + metrics.host() + ":" + metrics.port() + "/metrics");
            out.flush();
            while (sink.isRunning() && !stop.await(500, TimeUnit.MILLISECONDS)) {
                if (duration != null && System.nanoTime() - began >= duration.toNanos()) {
                    break;
                }
            }
            final Optional<Throwable> failure = sink.failure();
            if (failure.isPresent()) {
                spec.commandLine().getErr().println("gpupool sink: stopped on an error: " + failure.get());
                return 1;
            }
            out.printf("gpupool sink: stopping (%d jobs left running; a restarted sink adopts them)%n",
                    sink.running().size());
            out.flush();
            return 0;
        } finally {
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running and returns now.
            }
        }
    }

    private MetricsServer serve(final SinkRunner sink) throws IOException {
        return MetricsServer.start(sink.metrics().registry(), metricsHost.host(), metricsPort);
    }

    private String registry() {
        if (registryUrl != null && !registryUrl.isBlank()) {
            return registryUrl.trim();
        }
        return cluster.dataDir().running().flatMap(StackDescriptor::registryUrl).orElseThrow(() ->
                new CommandLine.ParameterException(spec.commandLine(),
                        "no schema registry: pass --registry-url URL, or start a local stack with `gpupool up`"));
    }

    private Applier applier(final Path state) {
        switch (applier) {
            case exec:
                if (!(grace.toMillis() >= 0)) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--grace must not be negative");
                }
                return new ExecApplier(CommandTemplate.parse(execTemplate), grace, state.resolve("logs"));
            case file:
                return new FileApplier(allocationDir != null ? allocationDir : state.resolve("allocations"));
            default:
                if (!(timeScale > 0)) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--time-scale must be > 0, e.g. 60");
                }
                return new SimulatedApplier(timeScale, defaultRuntime);
        }
    }
}
