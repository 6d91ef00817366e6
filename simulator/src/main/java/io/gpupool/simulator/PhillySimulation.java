package io.gpupool.simulator;

import io.gpupool.simulator.philly.PhillyPolicy;
import io.gpupool.simulator.philly.PhillyProtocol;
import io.gpupool.simulator.philly.PhillyResult;
import io.gpupool.simulator.philly.VirtualClusterSizes;
import io.gpupool.simulator.pool.PoolFactory;
import io.gpupool.simulator.progress.ProgressBar;
import io.gpupool.simulator.report.PhillyReport;
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

    /** Where virtual-cluster sizes come from: Helios's table, each VC's own demand, or a {@code vc,node num} file. */
    public record Sizing(String name, Path file) {

        public static Sizing helios() {
            return new Sizing("Helios", null);
        }

        public static Sizing demand() {
            return new Sizing("demand", null);
        }

        public static Sizing file(final Path file) {
            return new Sizing(file.getFileName().toString(), file);
        }

        Map<String, Integer> table() {
            if (file != null) {
                return VirtualClusterSizes.read(file);
            }
            return name.equals("Helios") ? VirtualClusterSizes.heliosPhilly() : Map.of();
        }
    }

    /**
     * @param sizing where the virtual clusters' node counts come from
     * @return the headline lines ({@code policy=fifo avg_jct_s=... avg_queue_s=...})
     */
    public static List<String> run(final PoolFactory engines, final Path traceFile, final Instant from, final Instant until,
                                   final Sizing sizing, final List<PhillyPolicy> policies, final int threads,
                                   final Map<String, String> engineOverrides, final Path out,
                                   final PrintStream progressOut) {
        final List<PhillyJob> jobs = PhillyTraceReader.read(traceFile, from, until);
        if (jobs.isEmpty()) {
            throw new IllegalArgumentException("no job of " + traceFile + " was submitted in [" + from + ", " + until + ")");
        }
        final Map<String, VirtualClusterSizes.Sizing> sizes = VirtualClusterSizes.choose(jobs, sizing.table(), sizing.name());
        final ProgressBar progress = new ProgressBar(progressOut, "philly " + policies.size() + " policies, jobs done",
                (long) policies.size() * jobs.size());
        final List<PhillyResult> results = PhillyProtocol.run(engines, policies, jobs, sizes, threads, engineOverrides, progress);
        progress.finish();
        final int totalGpus = sizes.values().stream().mapToInt(s -> s.nodes() * VirtualClusterSizes.GPUS_PER_NODE).sum();
        final String inputs = String.format(Locale.ROOT,
                "Inputs: trace `%s`, %d jobs submitted in [%s, %s) (mean duration %.0f s), %d virtual clusters, %d GPUs in all, "
                        + "offered load %.0f%% of them (GPU-seconds of the jobs / GPU-seconds of the window). "
                        + "Each job queues until the engine places it and runs for its trace duration (completion fed back to the engine "
                        + "as a job event at start + duration); averages are over all jobs of the window that ran.",
                traceFile.getFileName(), jobs.size(), from, until, jobs.stream().mapToLong(PhillyJob::durationSeconds).average().orElse(0),
                sizes.size(), totalGpus, 100 * VirtualClusterSizes.offeredLoad(jobs, totalGpus));
        final String demandRule = "sized from its own demand: enough 8-GPU nodes for its largest job and for its mean GPU demand "
                + "over the window at 70% load, rounded up to a power of two";
        final String sizingNote = switch (sizing.name()) {
            case "Helios" -> "Sizes come from the Helios artifact's Philly table (HeliosArtifact `framework/QSSF Service/data/philly_vc.csv`), "
                    + "the sizes Helios simulated for its published numbers; a VC missing from it is " + demandRule + ".";
            case "demand" -> "Every VC is " + demandRule + ".";
            default -> "Sizes come from `" + sizing.name() + "`; a VC missing from it is " + demandRule + ".";
        };
        PhillyReport.write(out, results, sizes, inputs, sizingNote);
        return PhillyReport.headlines(results);
    }
}
