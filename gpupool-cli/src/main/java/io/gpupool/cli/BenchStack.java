package io.gpupool.cli;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.localstack.StackDescriptor;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;

/**
 * What the benchmarks that run against a live stack share: finding its schema registry (the option, else the
 * local stack's) and printing their figures as {@code name=value} lines.
 */
final class BenchStack {
    private BenchStack() {
    }

    /** {@code registryUrl}, else the registry of the local stack in the cluster's data dir; {@code start} says how to start one. */
    static String registry(final ClusterOptions cluster, final String registryUrl, final CommandLine.Model.CommandSpec spec,
                           final String start) {
        return registryUrl != null ? registryUrl : cluster.dataDir().running()
                .flatMap(StackDescriptor::registryUrl).orElseThrow(() -> new CommandLine.ParameterException(
                        spec.commandLine(), "no schema registry: pass --registry-url or start `" + start + "`"));
    }

    static void print(final Map<String, String> figures, final CommandLine.Model.CommandSpec spec) {
        final PrintWriter out = spec.commandLine().getOut();
        figures.forEach((k, v) -> out.println(k + "=" + v));
        out.flush();
    }
}
