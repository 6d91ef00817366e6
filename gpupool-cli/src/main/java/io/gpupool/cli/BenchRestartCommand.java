package io.gpupool.cli;

import io.gpupool.bench.BenchWorkDirectory;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.bench.restart.RestartBench;
import io.gpupool.bench.restart.RestartBenchOptions;
import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.DurationConverter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool bench restart}: kill -9 of a separately run scheduler to its first new decision, N times. */
@Command(name = "restart", mixinStandardHelpOptions = true,
        description = {
            "The scheduler as a child process on a live broker (default: the local stack in --data-dir, e.g.",
            "`gpupool up --no-scheduler`), with a simulated fleet of --nodes nodes and the simulated sink in this",
            "process and a steady load of --rate jobs/s. SIGKILLs the scheduler --kills times, restarting it at once",
            "on the same state directory; prints per kill the ms from the kill to the first decision caused by an",
            "input written after it, then first_decision_p50_ms / p90 / max (and running_*: kill to Streams RUNNING).",
            "Then checks that every job got its final decision, that no decision id was read twice (read_committed)",
            "and that the audit of the topics is clean (passed=true, exit 0). Progress on stderr.",
            "Uses and then deletes topics named restart-<time>.*."})
public final class BenchRestartCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--registry-url", description = "Schema Registry URL. Default: the local stack's.")
    String registryUrl;

    @Option(names = "--kills", defaultValue = "10", description = "SIGKILLs, each followed by a restart (default ${DEFAULT-VALUE}).")
    int kills;

    @Option(names = "--nodes", defaultValue = "8", description = "Simulated nodes of 8 GPUs (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--rate", defaultValue = "4", description = "Jobs submitted per second (default ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--warmup", converter = DurationConverter.class, defaultValue = "15s",
            description = "Load before the first kill (default ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--between-kills", converter = DurationConverter.class, defaultValue = "5s",
            description = "Load after a restart's first new decision before the next kill (default ${DEFAULT-VALUE}).")
    Duration betweenKills;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final String registry = BenchStack.registry(cluster, registryUrl, spec, "gpupool up --no-scheduler");
        final Map<String, String> figures;
        try (BenchWorkDirectory work = BenchWorkDirectory.create("gpupool-bench-restart-")) {
            final RestartBenchOptions o;
            try {
                o = new RestartBenchOptions(cluster.bootstrapServers(), registry, cluster.clientProperties(), kills, nodes,
                        rate, warmup, betweenKills, work.path());
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            try {
                figures = RestartBench.run(o, System.err);
            } catch (Exception e) {
                work.keep("the restart bench failed (" + e + ")");
                throw e;
            }
            if (!Boolean.parseBoolean(figures.get("passed"))) {
                work.keep("the restart check failed");
            }
        }
        BenchStack.print(figures, spec);
        return (Boolean.parseBoolean(figures.get("passed")) ? ExitCodes.OK : ExitCodes.CHECK_FAILED).code();
    }
}
