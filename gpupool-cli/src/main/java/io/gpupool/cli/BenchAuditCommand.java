package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import io.gpupool.bench.audit.AuditBench;
import io.gpupool.scheduler.audit.AuditResult;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpupool bench audit}: offline audit throughput over a generated recorded history. */
@Command(name = "audit", mixinStandardHelpOptions = true,
        description = {
            "Records a synthetic history of --entries journal entries (inventory, utilisation and health facts,",
            "heartbeats, ticks, job submits and the sink's job events) on --nodes 8-GPU nodes, then audits it.",
            "Prints the audit's lines: entries_per_s (wall clock) and entries_per_cpu_s (CPU time of the",
            "auditing thread: what one core does when the machine is shared)."})
public final class BenchAuditCommand implements Callable<Integer> {

    @Option(names = "--entries", defaultValue = "1000000", description = "Journal entries (default ${DEFAULT-VALUE}).")
    int entries;

    @Option(names = "--nodes", defaultValue = "64", description = "Nodes of 8 GPUs (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the generated history (default ${DEFAULT-VALUE}).")
    long seed;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        final AuditResult r = AuditBench.run(entries, nodes, seed, spec.commandLine().getOut());
        return (r.passed() ? ExitCodes.OK : ExitCodes.CHECK_FAILED).code();
    }
}
