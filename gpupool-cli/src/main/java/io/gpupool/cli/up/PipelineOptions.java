package io.gpupool.cli.up;

import io.gpupool.cli.config.DurationConverter;
import io.gpupool.collector.sim.FleetSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The flags of {@code gpupool up} that size or switch off the parts of the pipeline (the scheduler and what follows it). */
public final class PipelineOptions {

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "64",
            description = "Simulated fleet: nodes (default ${DEFAULT-VALUE}).")
    public int nodes;

    @Option(names = "--gpus-per-node", paramLabel = "N", defaultValue = "8",
            description = "Simulated fleet: GPUs per node (default ${DEFAULT-VALUE}).")
    public int gpusPerNode;

    @Option(names = "--leaves", paramLabel = "N", defaultValue = "4",
            description = "Simulated fleet: leaf switches; half of them (at least one) form the RoCE island, the rest InfiniBand "
                    + "(default ${DEFAULT-VALUE}).")
    public int leaves;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
            description = "Seed of the fleet's noise and of the job generator (default ${DEFAULT-VALUE}).")
    public long seed;

    @Option(names = "--telemetry-interval", paramLabel = "TIME", defaultValue = "2s", converter = DurationConverter.class,
            description = "Simulated fleet: telemetry interval (default ${DEFAULT-VALUE}).")
    public Duration telemetryInterval;

    @Option(names = "--fault-rate", paramLabel = "P", defaultValue = "0",
            description = "Simulated fleet: chance per node per tick of a fault (Xid, overheating, link down...). Default ${DEFAULT-VALUE}.")
    public double faultRate;

    @Option(names = "--rate", paramLabel = "JOBS_PER_S", defaultValue = "2",
            description = "Job generator: jobs submitted per second, Poisson arrivals (default ${DEFAULT-VALUE}).")
    public double rate;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "Replay this trace instead of generating jobs: the Philly CSV (philly-pollux.csv) or an Alibaba "
                    + "openb pod list (openb_pod_list_*.csv); arrivals and runtimes are sped up by --time-scale.")
    public Path trace;

    @Option(names = "--trace-limit", paramLabel = "N", defaultValue = "0",
            description = "Replay only the first N jobs of the trace (default: all).")
    public int traceLimit;

    @Option(names = "--trace-skip", paramLabel = "TIME", defaultValue = "0s", converter = DurationConverter.class,
            description = "Skip the trace's first TIME of trace time (a sparse lead-in; e.g. 20d for Philly, whose bulk "
                    + "starts on 2017-09-24). Default: none.")
    public Duration traceSkip;

    @Option(names = "--time-scale", paramLabel = "X", defaultValue = "60",
            description = "How many times faster than real time simulated jobs run and traces arrive (default ${DEFAULT-VALUE}).")
    public double timeScale;

    @Option(names = "--exec-jobs",
            description = "Run jobs that carry a command (gpupool submit ... -- CMD) as real processes on this machine; "
                    + "the others stay simulated.")
    public boolean execJobs;

    @Option(names = "--no-scheduler",
            description = "Do not run the scheduler: run `gpupool scheduler` as its own process next to the pipeline"
                    + " (to stop, kill and restart it on its own).")
    public boolean noScheduler;

    @Option(names = "--no-fleet", description = "Do not run the simulated fleet (e.g. real collectors publish).")
    public boolean noFleet;

    @Option(names = "--no-sink", description = "Do not run the simulated sink (e.g. `gpupool sink` runs elsewhere).")
    public boolean noSink;

    @Option(names = "--no-generator", description = "Submit no jobs (use `gpupool submit`).")
    public boolean noGenerator;

    @Option(names = "--progress-every", paramLabel = "TIME", defaultValue = "5s", converter = DurationConverter.class,
            description = "How often the progress line is printed on stderr; 0s for none (default ${DEFAULT-VALUE}).")
    public Duration progressEvery;

    /** Why these flags cannot work, with the fix; null when they can. */
    public String problem() {
        if (nodes < 1 || gpusPerNode < 1) {
            return "--nodes and --gpus-per-node must be at least 1, e.g. --nodes 64 --gpus-per-node 8";
        }
        if (leaves < 1 || leaves > nodes) {
            return "--leaves must be 1 to --nodes (" + nodes + "), e.g. --leaves 4";
        }
        if (!(rate > 0) || rate > 10_000) {
            return "--rate must be > 0 and at most 10000 jobs/s, e.g. --rate 2";
        }
        if (!(timeScale > 0)) {
            return "--time-scale must be > 0, e.g. 60 (a one-hour job runs a minute)";
        }
        if (faultRate < 0 || faultRate > 1) {
            return "--fault-rate is a probability: 0 to 1, e.g. 0.001";
        }
        if (traceSkip.isNegative()) {
            return "--trace-skip must not be negative, e.g. 20d";
        }
        if (traceLimit < 0) {
            return "--trace-limit must be 0 (all) or more";
        }
        if (trace != null && !Files.isRegularFile(trace)) {
            return "--trace " + trace + " is not a file; e.g. --trace philly-pollux.csv (the Philly trace) "
                    + "or an Alibaba openb_pod_list_*.csv";
        }
        if (trace != null && noGenerator) {
            return "--trace and --no-generator contradict each other: drop one";
        }
        if (telemetryInterval.isZero() || telemetryInterval.isNegative()) {
            return "--telemetry-interval must be positive, e.g. 2s";
        }
        return null;
    }

    /** The fleet: --leaves leaves, two per spine; the last spine is the RoCE island when there are two or more. */
    public FleetSpec fleetSpec(final String pool) {
        final int nodesPerLeaf = (nodes + leaves - 1) / leaves;
        final int leavesPerSpine = Math.max(1, (leaves + 1) / 2);
        final int spines = (leaves + leavesPerSpine - 1) / leavesPerSpine;
        return new FleetSpec(pool, nodes, gpusPerNode, 2, nodesPerLeaf, leavesPerSpine, spines > 1 ? 1 : 0, seed);
    }
}
