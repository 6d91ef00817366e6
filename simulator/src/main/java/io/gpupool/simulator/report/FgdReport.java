package io.gpupool.simulator.report;

import io.gpupool.simulator.fgd.FgdResult;
import io.gpupool.simulator.fgd.FgdSeries;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Writes the FGD protocol's CSV files, charts and markdown summary, and its headline lines. */
public final class FgdReport {

    private static final int MAX_ARRIVED_PCT = 130;

    private FgdReport() {
    }

    /** {@code policy=... alloc_pct_at_100=... alloc_pct_at_130=...}, one line per policy. */
    public static List<String> headlines(final List<FgdResult> results) {
        final List<String> lines = new ArrayList<>();
        for (FgdResult r : results) {
            lines.add(String.format(Locale.ROOT, "policy=%s alloc_pct_at_100=%.1f alloc_pct_at_130=%.1f seeds=%d",
                    r.policy(), r.meanAllocatedPctAt(100), r.meanAllocatedPctAt(130), r.seeds().size()));
        }
        return lines;
    }

    public static void write(final Path out, final List<FgdResult> results, final String inputs, final String protocolNote) {
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + out, e);
        }
        try (CsvOut curve = new CsvOut(out.resolve("fgd_curve.csv"),
                "policy", "arrived_pct", "alloc_pct_mean", "alloc_pct_min", "alloc_pct_max", "stranded_free_pct_mean",
                "fgd_fragmentation_rate_pct_mean")) {
            for (FgdResult r : results) {
                for (int pct = 0; pct <= MAX_ARRIVED_PCT; pct++) {
                    curve.row(r.policy(), pct, r.meanAllocatedPctAt(pct), r.minAllocatedPctAt(pct), r.maxAllocatedPctAt(pct),
                            r.meanFragmentedPctAt(pct), r.meanFragmentationRatePctAt(pct));
                }
            }
        }
        try (CsvOut seeds = new CsvOut(out.resolve("fgd_seeds.csv"),
                "policy", "seed", "pods", "failed_pods", "arrived_pct_final", "alloc_pct_at_100", "alloc_pct_at_130")) {
            for (FgdResult r : results) {
                for (FgdSeries s : r.seeds()) {
                    seeds.row(r.policy(), s.seed(), s.pods(), s.failedPods(), s.finalArrivedPct(), s.allocatedPctAt(100), s.allocatedPctAt(130));
                }
            }
        }
        try (CsvOut pods = new CsvOut(out.resolve("fgd_pods.csv"),
                "policy", "seed", "arrival", "pod", "gpu_milli", "arrived_milli", "allocated_milli", "node")) {
            for (FgdResult r : results) {
                final FgdSeries s = r.seeds().get(0);
                for (int i = 0; i < s.pods(); i++) {
                    pods.row(r.policy(), s.seed(), i, s.podNames()[i], s.podGpuMilli()[i], s.arrivedMilli()[i], s.allocatedMilli()[i], s.placedNode()[i]);
                }
            }
        }
        charts(out, results);
        summary(out, results, inputs, protocolNote);
    }

    private static void charts(final Path out, final List<FgdResult> results) {
        final XYSeriesCollection allocation = new XYSeriesCollection();
        final XYSeriesCollection fragmentation = new XYSeriesCollection();
        final XYSeriesCollection fragmentationRate = new XYSeriesCollection();
        for (FgdResult r : results) {
            final XYSeries rate = new XYSeries(r.policy());
            for (int pct = 1; pct <= MAX_ARRIVED_PCT; pct++) {
                final double v = r.meanFragmentationRatePctAt(pct);
                if (!Double.isNaN(v)) {
                    rate.add(pct, v);
                }
            }
            fragmentationRate.addSeries(rate);
            final XYSeries a = new XYSeries(r.policy() + String.format(Locale.ROOT, " (%.1f%% at 130%%)", r.meanAllocatedPctAt(130)));
            final XYSeries f = new XYSeries(r.policy());
            for (int pct = 0; pct <= MAX_ARRIVED_PCT; pct++) {
                a.add(pct, r.meanAllocatedPctAt(pct));
                f.add(pct, r.meanFragmentedPctAt(pct));
            }
            allocation.addSeries(a);
            fragmentation.addSeries(f);
        }
        final XYSeries ideal = new XYSeries("arrived demand (upper bound)");
        for (int pct = 0; pct <= MAX_ARRIVED_PCT; pct++) {
            ideal.add(pct, Math.min(100, pct));
        }
        allocation.addSeries(ideal);
        Charts.line(out.resolve("fgd_allocation.png"), "GPU allocation as arrived demand grows (mean over seeds)",
                "arrived GPU demand, % of cluster GPUs", "GPUs allocated, % of cluster GPUs", allocation, false);
        Charts.line(out.resolve("fgd_stranded.png"), "Free GPU capacity stranded on partly used nodes (mean over seeds)",
                "arrived GPU demand, % of cluster GPUs", "% of cluster GPUs", fragmentation, false);
        Charts.line(out.resolve("fgd_fragmentation.png"), "Fragmentation rate, FGD's measure from the engine (mean over seeds)",
                "arrived GPU demand, % of cluster GPUs", "% of free GPU capacity the job mix cannot use", fragmentationRate, false);
    }

    private static void summary(final Path out, final List<FgdResult> results, final String inputs, final String protocolNote) {
        final StringBuilder md = new StringBuilder();
        md.append("# gpupool simulate: FGD protocol (Alibaba GPU trace 2023)\n\n");
        md.append(inputs).append("\n\n").append(protocolNote).append("\n\n");
        md.append("## GPU allocation, % of cluster GPUs (mean of seeds)\n\n");
        md.append("| policy | seeds | ours @100% | published @100% | ours @130% | published @130% | min..max @130% | failed pods (seed 0) |\n");
        md.append("|---|---|---|---|---|---|---|---|\n");
        for (FgdResult r : results) {
            final double[] published = Published.FGD_ALLOC_PCT.get(r.policy());
            md.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %s | %.1f | %s | %.1f..%.1f | %d |\n",
                    r.policy(), r.seeds().size(), r.meanAllocatedPctAt(100), published == null ? "-" : published[0],
                    r.meanAllocatedPctAt(130), published == null ? "-" : published[1],
                    r.minAllocatedPctAt(130), r.maxAllocatedPctAt(130), r.seeds().get(0).failedPods()));
        }
        for (String name : List.of("random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd")) {
            if (results.stream().noneMatch(r -> r.policy().equals(name))) {
                final double[] p = Published.FGD_ALLOC_PCT.get(name);
                md.append(String.format(Locale.ROOT, "| %s (not run) | | | %.1f | | %.1f | | |\n", name, p[0], p[1]));
            }
        }
        md.append("\nPublished: FGD paper (Weng et al., \"Beware of Fragmentation\", USENIX ATC'23), default trace, mean of 10 seeds.\n\n");
        md.append("## Files\n\n");
        md.append("- `fgd_allocation.png`: allocation vs arrived demand, all policies on one chart.\n");
        md.append("- `fgd_fragmentation.png`: fragmentation rate, FGD's measure as the engine computes it (share of free GPU capacity the recent job mix cannot use).\n");
        md.append("- `fgd_stranded.png`: free GPU capacity stranded on nodes that already host GPU work (% of cluster GPUs).\n");
        md.append("- `fgd_curve.csv`: per policy and arrived-demand percent: mean/min/max allocation, fragmentation.\n");
        md.append("- `fgd_seeds.csv`: per policy and seed: pods, failed pods, allocation at 100% and 130%.\n");
        md.append("- `fgd_pods.csv`: per pod of the first seed: arrival order, demand, node (empty = failed).\n");
        try {
            Files.writeString(out.resolve("summary.md"), md.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write summary", e);
        }
    }
}
