package io.gpupool.cli;

import picocli.CommandLine.Option;

/** The synthetic pool a bench with a scheduler of its own loads: nodes of H100s over leaf switches. */
final class BenchPoolOptions {
    @Option(names = "--nodes", defaultValue = "512", description = "Nodes in the pool (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--gpus", defaultValue = "8", description = "GPUs per node (default ${DEFAULT-VALUE}).")
    int gpus;

    @Option(names = "--leaves", defaultValue = "16", description = "Leaf switches (default ${DEFAULT-VALUE}).")
    int leaves;
}
