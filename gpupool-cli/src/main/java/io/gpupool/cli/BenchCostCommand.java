package io.gpupool.cli;

import io.gpupool.bench.BenchWorkDirectory;
import io.gpupool.bench.cost.CostBench;
import io.gpupool.bench.cost.CostBenchOptions;
import io.gpupool.cli.config.ClusterOptions;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool bench cost}: records, bytes, store calls and CPU per decided request, on a scheduler of its own. */
@Command(name = "cost", mixinStandardHelpOptions = true,
        description = {
            "Where a decided request's cost goes, on a live broker (default: the local stack in --data-dir): starts a",
            "scheduler of its own, sends --warmup-jobs and then --jobs 1-GPU requests (closed loop, at most --in-flight",
            "open; the bench completes each placed job unless --no-complete) and prints per decided request: records,",
            "transaction markers, payload and on-disk bytes of every topic written (journal, decisions, node commands,",
            "snapshots, the repartition topic, every changelog), state-store calls per store (Streams' DEBUG metrics),",
            "the scheduler threads' CPU time and, from a JFR recording, CPU shares by component and the top frames.",
            "Uses and then deletes topics named cost-<time>.*."})
public final class BenchCostCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--registry-url", description = "Schema Registry URL. Default: the local stack's.")
    String registryUrl;

    @Option(names = "--jobs", defaultValue = "20000", description = "Measured requests (default ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--warmup-jobs", defaultValue = "5000",
            description = "Requests before the measurement, not counted (default ${DEFAULT-VALUE}).")
    int warmupJobs;

    @Option(names = "--in-flight", defaultValue = "1000",
            description = "Requests submitted and not finished at most (default ${DEFAULT-VALUE}).")
    int inFlight;

    @Option(names = "--complete", defaultValue = "true", negatable = true,
            description = "Complete each placed job at once, so a request costs its whole life (default ${DEFAULT-VALUE});"
                    + " --no-complete: placement only, the pool must hold every job.")
    boolean complete;

    @Option(names = "--store-calls", defaultValue = "true", negatable = true,
            description = "Count state-store calls with Streams' DEBUG metrics, which cost CPU of their own"
                    + " (default ${DEFAULT-VALUE}).")
    boolean storeCalls;

    @Option(names = "--profile", defaultValue = "true", negatable = true,
            description = "Record the scheduler with JFR and print CPU shares (default ${DEFAULT-VALUE}).")
    boolean profile;

    @Option(names = "--backlog", defaultValue = "0",
            description = "0: the closed loop (default). N: the pool is first held full (a 1-GPU job on every GPU) and N"
                    + " jobs queued behind it; the measured requests are those waiting jobs, each started by a release"
                    + " and completed at once, so a request's cost is taken with a queue N deep (N >= --jobs).")
    int backlog;

    @Option(names = "--retention-ms", defaultValue = "-1",
            description = "How long a finished job stays in the placer's job book (the engine's finished-job-retention-ms);"
                    + " default: the engine's 7 days, so no job expires in the run and a request's cost ends at its"
                    + " release. Shorter than the run (1000, say): each measured request also pays for an earlier job's"
                    + " expiry, as every job does once in a long-running pool.")
    long retentionMs;

    @Option(names = "--restart", description = "After the measurement, stop the scheduler and start it again on its"
            + " state directory: prints restart_restored_entries (journal entries after the pool's last snapshot, which"
            + " the restore re-applies) and restart_pool_ms (start to the pool's engine restored).")
    boolean restart;

    @Mixin
    BenchPoolOptions pool;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final String registry = BenchStack.registry(cluster, registryUrl, spec, "gpupool up");
        final Map<String, String> figures;
        try (BenchWorkDirectory work = BenchWorkDirectory.create("gpupool-cost-")) {
            final CostBenchOptions o;
            try {
                o = new CostBenchOptions(cluster.bootstrapServers(), registry, cluster.clientProperties(), jobs, warmupJobs,
                        inFlight, complete, pool.nodes, pool.gpus, pool.leaves, storeCalls, profile, work.path(),
                        backlog, retentionMs, restart);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            figures = CostBench.run(o, System.err);
        }
        BenchStack.print(figures, spec);
        return 0;
    }
}
