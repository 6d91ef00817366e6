package io.gpupool.cli;

import io.gpupool.bench.BenchWorkDirectory;
import io.gpupool.bench.pipeline.SoakBench;
import io.gpupool.bench.pipeline.SoakBenchOptions;
import io.gpupool.cli.config.ClusterOptions;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool bench soak}: millions of jobs through both scheduler stages; state, heap and DLQ must stay flat. */
@Command(name = "soak", mixinStandardHelpOptions = true,
        description = {
            "A long run on a live broker (default: the local stack in --data-dir): --jobs jobs submitted and finished",
            "through both scheduler stages (the bench completes each placed job at once), with a short finished-job",
            "retention so that the job book and decision history expire during the run. Every --report-every finished",
            "jobs it prints live jobs, the scheduler's state directory bytes, heap after GC and DLQ records: bounded",
            "state means flat. Uses and then deletes topics named soak-<time>.*."})
public final class BenchSoakCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--registry-url", description = "Schema Registry URL. Default: the local stack's.")
    String registryUrl;

    @Option(names = "--jobs", defaultValue = "2000000", description = "Jobs submitted and finished (default ${DEFAULT-VALUE}).")
    long jobs;

    @Option(names = "--report-every", defaultValue = "1000000",
            description = "Finished jobs between report lines (default ${DEFAULT-VALUE}).")
    long reportEvery;

    @Option(names = "--progress-every", defaultValue = "50000",
            description = "Finished jobs between progress lines (default ${DEFAULT-VALUE}).")
    long progressEvery;

    @Option(names = "--in-flight", defaultValue = "2000", description = "Jobs submitted and not finished at most (default ${DEFAULT-VALUE}).")
    int inFlight;

    @Option(names = "--retention-ms", defaultValue = "30000",
            description = "The engine's finished-job-retention-ms for the run (default ${DEFAULT-VALUE}).")
    long retentionMs;

    @Mixin
    BenchPoolOptions pool;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final String registry = BenchStack.registry(cluster, registryUrl, spec, "gpupool up");
        final Map<String, String> figures;
        try (BenchWorkDirectory work = BenchWorkDirectory.create("gpupool-soak-")) {
            final SoakBenchOptions o;
            try {
                o = new SoakBenchOptions(cluster.bootstrapServers(), registry, cluster.clientProperties(), jobs, reportEvery,
                        Math.min(progressEvery, reportEvery), pool.nodes, pool.gpus, pool.leaves, inFlight, retentionMs,
                        work.path());
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            figures = SoakBench.run(o, System.err);
        }
        BenchStack.print(figures, spec);
        return 0;
    }
}
