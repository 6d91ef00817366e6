package io.gpupool.cli;

import io.gpupool.bench.engine.EngineBenchOptions;
import io.gpupool.bench.engine.QueueDepthBench;
import io.gpupool.scheduler.core.ScoringPolicy;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpupool bench queue}: what a decision costs with a full pool and a standing queue, per queue depth. */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = {
            "Placement engine on one thread, a pool of --nodes x 8 GPUs kept full, a queue held at each of --depths",
            "waiting jobs (the pipeline bench's mix: 1, 2 and 8 GPUs, four tenants). Prints per depth, in CPU ns of the",
            "benchmark thread: depth_D_submit_queued_cpu_ns (a submit that must wait), depth_D_release_cpu_ns (a job",
            "COMPLETED, with depth_D_starts_per_release waiting jobs started), depth_D_explain_queued_cpu_ns (the reason",
            "a query of a waiting job builds), and depth_D_inputs_per_cpu_s."})
public final class BenchQueueCommand implements Callable<Integer> {

    @Option(names = "--nodes", defaultValue = "4096", description = "Nodes of 8 GPUs, 64 per leaf (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--depths", defaultValue = "0,1000,10000,100000", split = ",",
            description = "Queue depths to hold (default ${DEFAULT-VALUE}).")
    List<Integer> depths;

    @Option(names = "--ops", defaultValue = "20000", description = "Timed releases per depth (default ${DEFAULT-VALUE}).")
    int ops;

    @Option(names = "--warmup-ops", defaultValue = "20000", description = "Untimed releases first (default ${DEFAULT-VALUE}).")
    int warmupOps;

    @Option(names = "--memory-sizes", defaultValue = "1",
            description = "Memory sizes jobs ask for: more makes that many job shapes per GPU count (default ${DEFAULT-VALUE}).")
    int memorySizes;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        final QueueDepthBench.Options options;
        try {
            final EngineBenchOptions d = EngineBenchOptions.defaults();
            options = new QueueDepthBench.Options(new EngineBenchOptions(nodes, Math.max(1, nodes / 64), 8, d.singleOps(),
                    d.gangOps(), d.warmupOps(), ScoringPolicy.BEST_FIT, d.seed()), depths, ops, warmupOps, memorySizes);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        final PrintWriter out = spec.commandLine().getOut();
        QueueDepthBench.run(options, System.err).forEach((k, v) -> out.println(k + "=" + v));
        out.flush();
        return 0;
    }
}
