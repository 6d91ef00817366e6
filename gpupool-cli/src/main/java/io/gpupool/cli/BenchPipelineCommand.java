package io.gpupool.cli;

import io.gpupool.bench.BenchWorkDirectory;
import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.bench.pipeline.PipelineBench;
import io.gpupool.bench.pipeline.PipelineBenchOptions;
import io.gpupool.scheduler.stream.JournalBacklog;
import io.gpupool.scheduler.stream.SchedulerOptions;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gpupool bench pipeline}: the scheduler's drain ceiling and the pass-through ceiling, then job requests through
 * both scheduler stages on a live broker at a fixed or the highest holding rate, then an overload.
 */
@Command(name = "pipeline", mixinStandardHelpOptions = true,
        description = {
            "The scheduler (both stages, exactly-once) on a live broker (default: the local stack in --data-dir), in",
            "one run: a fresh scheduler draining a backlog of --drain-records requests (drain_requests_per_s: first",
            "decisions), another running them to their end with the bench as the sink (drain_lifecycle_requests_per_s:",
            "RELEASED, a paced request's whole work) and a pass-through Streams app with the same settings copying",
            "--passthrough-records (passthrough_records_per_s, drain_ratio), each over its whole backlog; then job",
            "requests offered at --rate per second (or, with --find-max, at the highest rate whose p99 stays within",
            "--p99-target-ms, searched in steps of --warmup + --measure seconds) while telemetry for --nodes nodes",
            "arrives at 1 Hz and the bench completes placed jobs after --job-runtime-ms; then --overload seconds at",
            "twice that rate and half of it after (overload_ratio: decisions per second during the overload over the",
            "drain ceiling; recovery_s: until every request of the overload is decided). The *_ratio_lifecycle figures",
            "are the same ratios over the lifecycle drain. Latency: job record timestamp to decision at a",
            "read_committed consumer. Every figure is printed as name=value; --repeat N prints each run's and then",
            "NAME_min/_median/_max.",
            "Uses and then deletes topics named bench-<time>*."})
public final class BenchPipelineCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--registry-url", description = "Schema Registry URL. Default: the local stack's.")
    String registryUrl;

    @Option(names = "--rate", defaultValue = "5000", description = "Job requests offered per second (default ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--nodes", defaultValue = "4096", description = "Nodes sending telemetry at 1 Hz (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--gpus", defaultValue = "8", description = "GPUs per node (default ${DEFAULT-VALUE}).")
    int gpus;

    @Option(names = "--leaves", defaultValue = "64", description = "Leaf switches (default ${DEFAULT-VALUE}).")
    int leaves;

    @Option(names = "--warmup", defaultValue = "15", description = "Seconds of load before each measured window (a search step or the --rate run); the offered rate ramps up over its first half, 20 s at most (default ${DEFAULT-VALUE}).")
    int warmupS;

    @Option(names = "--measure", defaultValue = "30", description = "Seconds of each measured window (default ${DEFAULT-VALUE}).")
    int measureS;

    @Option(names = "--find-max", description = "Search for the highest offered rate whose p99 holds --p99-target-ms for a measured window, from 0.4x the drain ceiling (a paced request is a whole job, at least twice a drained one) (instead of --rate).")
    boolean findMax;

    @Option(names = "--p99-target-ms", defaultValue = "250", description = "The p99 a rate must hold in the search (default ${DEFAULT-VALUE}).")
    long p99TargetMs;

    @Option(names = "--search-steps", defaultValue = "8", description = "Measured windows the search may spend at most (default ${DEFAULT-VALUE}).")
    int searchSteps;

    @Option(names = "--overload", defaultValue = "60", description = "Seconds at twice the found (or --rate) rate, then half of it until the backlog is decided; 0 leaves the overload out (default ${DEFAULT-VALUE}).")
    int overloadS;

    @Option(names = "--jit-warmup", defaultValue = "180", description = "Seconds of paced load at most, before the"
            + " first measured window, until the JIT compiler has settled (the scheduler runs in the bench's JVM; on 2 cores"
            + " the compiler took 22-37 %% of the machine for the first 35 s of paced load); above 0 an untimed drain also"
            + " comes before the timed one; 0 for neither (default ${DEFAULT-VALUE}).")
    int jitWarmupS;

    @Option(names = "--repeat", defaultValue = "1", description = "Whole runs, each on its own topics; figures then also as min/median/max (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--job-runtime-ms", defaultValue = "2000",
            description = "How long a placed job runs before the bench completes it (default ${DEFAULT-VALUE}).")
    long jobRuntimeMs;

    @Option(names = "--passthrough-records", defaultValue = "300000",
            description = "Backlog the pass-through app is timed on (default ${DEFAULT-VALUE}).")
    int passthroughRecords;

    @Option(names = "--drain-records", defaultValue = "100000",
            description = "Backlog of 1-GPU job requests the scheduler itself is timed on, like the pass-through"
                    + " (default ${DEFAULT-VALUE}; the pool fills and the rest queue).")
    int drainRecords;

    @Option(names = "--shed-journal-backlog", paramLabel = "ENTRIES", defaultValue = "" + JournalBacklog.DEFAULT_LIMIT,
            description = "The paced scheduler's limit on journal entries not yet applied, over which it sheds new submits"
                    + " (REJECTED OVERLOADED, counted as requests_shed_per_s and overload_shed_per_s); 0 never sheds. The"
                    + " drain never sheds (default ${DEFAULT-VALUE}, the scheduler's).")
    long shedJournalBacklog;

    @Option(names = "--snapshot-every", paramLabel = "ENTRIES", defaultValue = "" + SchedulerOptions.DEFAULT_SNAPSHOT_EVERY,
            description = "The bench schedulers' --snapshot-every (as `gpupool scheduler` takes it): journal entries"
                    + " between two engine snapshots of a pool at most (default ${DEFAULT-VALUE}, the scheduler's). A"
                    + " snapshot stops the placer while it is written: a larger value shows what that costs the latency.")
    int snapshotEvery;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final String registry = BenchStack.registry(cluster, registryUrl, spec, "gpupool up");
        final Map<String, String> figures;
        try (BenchWorkDirectory work = BenchWorkDirectory.create("gpupool-bench-")) {
            final PipelineBenchOptions o;
            try {
                o = new PipelineBenchOptions(cluster.bootstrapServers(), registry, cluster.clientProperties(), nodes, gpus,
                        leaves, rate, warmupS, measureS, jobRuntimeMs, passthroughRecords, drainRecords,
                        work.path(), findMax, p99TargetMs, searchSteps, overloadS, repeat,
                        jitWarmupS, shedJournalBacklog, snapshotEvery);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            figures = PipelineBench.run(o, System.err, spec.commandLine().getOut());
        }
        BenchStack.print(figures, spec);
        return 0;
    }
}
