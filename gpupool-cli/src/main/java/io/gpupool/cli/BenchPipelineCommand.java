package io.gpupool.cli;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.bench.pipeline.PipelineBench;
import io.gpupool.bench.pipeline.PipelineBenchOptions;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool bench pipeline}: job requests through both scheduler stages on a live broker, and the pass-through ceiling. */
@Command(name = "pipeline", mixinStandardHelpOptions = true,
        description = {
            "The scheduler (both stages, exactly-once) on a live broker (default: the local stack in --data-dir):",
            "job requests offered at --rate per second while telemetry for --nodes nodes arrives at 1 Hz; the bench",
            "completes placed jobs after --job-runtime. Then a pass-through Streams app with the same configuration",
            "drains a backlog (the ceiling). Prints requests_per_s, p50_latency_ms, p99_latency_ms (job record",
            "timestamp to decision at a read_committed consumer), passthrough_requests_per_s, ratio and more.",
            "Uses and then deletes topics named bench-<time>.*."})
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

    @Option(names = "--warmup", defaultValue = "45", description = "Seconds of load before measuring: JIT, the pool filling and the start-up backlog draining; the offered rate ramps up over its first half, 20 s at most (default ${DEFAULT-VALUE}).")
    int warmupS;

    @Option(names = "--measure", defaultValue = "30", description = "Seconds measured (default ${DEFAULT-VALUE}).")
    int measureS;

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

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final String registry = BenchStack.registry(cluster, registryUrl, spec, "gpupool up");
        final PipelineBenchOptions o;
        try {
            o = new PipelineBenchOptions(cluster.bootstrapServers(), registry, cluster.clientProperties(), nodes, gpus,
                    leaves, rate, warmupS, measureS, jobRuntimeMs, passthroughRecords, drainRecords,
                    Files.createTempDirectory("gpupool-bench-"));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        final Map<String, String> figures = PipelineBench.run(o, System.err);
        BenchStack.print(figures, spec);
        return 0;
    }
}
