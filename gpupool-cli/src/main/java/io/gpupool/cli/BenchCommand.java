package io.gpupool.cli;

import io.gpupool.bench.engine.EngineBench;
import io.gpupool.bench.engine.EngineBenchOptions;
import io.gpupool.scheduler.core.ScoringPolicy;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpupool bench}: benchmarks that print their figures as {@code name=value} lines. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks; each prints its figures as name=value lines on stdout.",
        subcommands = {
            BenchCommand.Engine.class,
            BenchPipelineCommand.class,
            BenchSoakCommand.class,
            CollectorBenchCommand.class,
            BenchAuditCommand.class,
            BenchQueueCommand.class,
            BenchRestartCommand.class,
            BenchCostCommand.class,
        })
public final class BenchCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "name a benchmark, e.g. 'gpupool bench engine' (see 'gpupool bench --help')");
    }

    /** {@code gpupool bench engine}: single-GPU and 8x8 gang placements on a 32k-GPU pool. */
    @Command(name = "engine", mixinStandardHelpOptions = true,
            description = {
                "Placement engine on one thread: a pool of --nodes x --gpus GPUs over --leaves leaves, kept 60-90%% full",
                "by release traffic; times single-GPU placements and 8-node x 8-GPU gangs on one leaf.",
                "Prints single_gpu_placements_per_s, gang_8x8_placements_per_s (wall clock), the same per CPU-second",
                "of the benchmark thread (*_per_cpu_s: what one core does when the machine is shared), and heap_mb.",
                "The default run takes well under a minute; raise --single-ops/--gang-ops for steadier figures."})
    static final class Engine implements Callable<Integer> {
        @Option(names = "--nodes", defaultValue = "4096", description = "Nodes in the pool (default ${DEFAULT-VALUE}).")
        int nodes;

        @Option(names = "--leaves", defaultValue = "64", description = "Leaf switches (default ${DEFAULT-VALUE}).")
        int leaves;

        @Option(names = "--gpus", defaultValue = "8", description = "GPUs per node (default ${DEFAULT-VALUE}).")
        int gpus;

        @Option(names = "--single-ops", defaultValue = "400000",
                description = "Timed single-GPU submissions (default ${DEFAULT-VALUE}).")
        int singleOps;

        @Option(names = "--gang-ops", defaultValue = "60000", description = "Timed 8x8 gang submissions (default ${DEFAULT-VALUE}).")
        int gangOps;

        @Option(names = "--warmup-ops", defaultValue = "100000",
                description = "Untimed submissions first, for the JIT (default ${DEFAULT-VALUE}).")
        int warmupOps;

        @Option(names = "--policy", defaultValue = "best-fit",
                description = "Scoring policy: first-fit, best-fit or fgd (default ${DEFAULT-VALUE}).")
        String policy;

        @Option(names = "--seed", defaultValue = "42", description = "Seed of the release traffic (default ${DEFAULT-VALUE}).")
        long seed;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            final EngineBenchOptions options;
            try {
                options = new EngineBenchOptions(nodes, leaves, gpus, singleOps, gangOps, warmupOps,
                        ScoringPolicy.byName(policy), seed);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            final PrintWriter out = spec.commandLine().getOut();
            final PrintStream progress = System.err;
            final Map<String, String> figures = EngineBench.run(options, progress);
            figures.forEach((k, v) -> out.println(k + "=" + v));
            out.flush();
            return 0;
        }
    }
}
