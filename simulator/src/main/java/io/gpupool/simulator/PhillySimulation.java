package io.gpupool.simulator;

import io.gpupool.simulator.philly.PhillyPolicy;
import io.gpupool.simulator.philly.PhillyProtocol;
import io.gpupool.simulator.philly.PhillyResult;
import io.gpupool.simulator.philly.VirtualClusterSizes;
import io.gpupool.simulator.pool.PoolFactory;
import io.gpupool.simulator.report.PhillyReport;
import io.gpupool.simulator.report.ProgressBar;
import io.gpupool.simulator.trace.PhillyJob;
import io.gpupool.simulator.trace.PhillyTraceReader;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Protocol 2 end to end: read the Philly trace window, size the virtual clusters, run every policy, write the reports. */
public final class PhillySimulation {

    private PhillySimulation() {
    }

    /**
     * @param vcSizesFile a {@code vc,node num} table, or null for Helios's Philly sizes
     * @return the headline lines ({@code policy=fifo avg_jct_s=... avg_queue_s=...})
     */
    public static List<String> run(final PoolFactory engines, final Path traceFile, final Instant from, final Instant until,
                                   final Path vcSizesFile, final List<PhillyPolicy> policies, final int threads, final Path out,
                                   final PrintStream progressOut) {
        final List<PhillyJob> jobs = PhillyTraceReader.read(traceFile, from, until);
        if (jobs.isEmpty()) {
            throw new IllegalArgumentException("no job of " + traceFile + " was submitted in [" + from + ", " + until + ")");
        }
        final Map<String, Integer> table = vcSizesFile == null ? VirtualClusterSizes.heliosPhilly() : VirtualClusterSizes.read(vcSizesFile);
        final Map<String, VirtualClusterSizes.Sizing> sizes = VirtualClusterSizes.choose(jobs, table,
                vcSizesFile == null ? "Helios" : vcSizesFile.getFileName().toString());
        final ProgressBar progress = new ProgressBar(progressOut, "philly " + policies.size() + " policies, jobs done",
                (long) policies.size() * jobs.size());
        final List<PhillyResult> results = PhillyProtocol.run(engines, policies, jobs, sizes, threads, progress);
        progress.finish();
        final String inputs = String.format(Locale.ROOT,
                "Inputs: trace `%s`, %d jobs submitted in [%s, %s), %d virtual clusters, %d GPUs in all. "
                        + "Each job queues until the engine places it and runs for its trace duration (completion fed back to the engine "
                        + "as a job event at start + duration); averages are over all jobs of the window that ran.",
                traceFile.getFileName(), jobs.size(), from, until, sizes.size(),
                sizes.values().stream().mapToInt(s -> s.nodes() * VirtualClusterSizes.GPUS_PER_NODE).sum());
        PhillyReport.write(out, results, sizes, inputs);
        return PhillyReport.headlines(results);
    }
}
