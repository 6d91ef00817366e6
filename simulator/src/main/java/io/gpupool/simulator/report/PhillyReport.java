package io.gpupool.simulator.report;

import io.gpupool.simulator.philly.JobResult;
import io.gpupool.simulator.philly.PhillyResult;
import io.gpupool.simulator.philly.VirtualClusterSizes;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes the Philly protocol's CSV files, charts and markdown summary, and its headline lines. */
public final class PhillyReport {

    private static final long HOUR = 3600;

    private PhillyReport() {
    }

    /** {@code policy=fifo avg_jct_s=... avg_queue_s=...}, one line per policy. */
    public static List<String> headlines(final List<PhillyResult> results) {
        final List<String> lines = new ArrayList<>();
        for (PhillyResult r : results) {
            lines.add(String.format(Locale.ROOT, "policy=%s avg_jct_s=%.0f avg_queue_s=%.0f median_queue_s=%.0f jobs=%d rejected=%d",
                    r.policy().name(), r.averageJctSeconds(), r.averageQueueingSeconds(), r.queueingQuantileSeconds(0.5),
                    r.finished().size(), r.rejectedCount()));
        }
        return lines;
    }

    public static void write(final Path out, final List<PhillyResult> results, final Map<String, VirtualClusterSizes.Sizing> sizes,
                             final String inputs, final String sizingNote) {
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + out, e);
        }
        try (CsvOut jobs = new CsvOut(out.resolve("philly_jobs.csv"),
                "policy", "job", "virtual_cluster", "gpus", "submit", "start", "end", "duration_s", "queue_s", "jct_s")) {
            for (PhillyResult r : results) {
                for (JobResult j : r.jobs()) {
                    jobs.row(r.policy().name(), j.jobId(), j.virtualCluster(), j.gpus(), j.submit(),
                            j.rejected() ? null : j.start(), j.rejected() ? null : j.end(), j.duration(),
                            j.rejected() ? null : j.queueingSeconds(), j.rejected() ? null : j.completionSeconds());
                }
            }
        }
        final long from = results.stream().flatMap(r -> r.jobs().stream()).mapToLong(JobResult::submit).min().orElse(0);
        final long until = results.stream().flatMap(r -> r.finished().stream()).mapToLong(JobResult::end).max().orElse(from);
        final List<double[]> utilisation = results.stream().map(r -> r.utilisation(from, until, HOUR)).toList();
        try (CsvOut series = new CsvOut(out.resolve("philly_utilisation.csv"), "policy", "time", "hour", "allocated_gpu_share")) {
            for (int p = 0; p < results.size(); p++) {
                final double[] u = utilisation.get(p);
                for (int h = 0; h < u.length; h++) {
                    series.row(results.get(p).policy().name(), Instant.ofEpochSecond(from + h * HOUR), h, u[h]);
                }
            }
        }
        try (CsvOut vcs = new CsvOut(out.resolve("philly_virtual_clusters.csv"), "virtual_cluster", "nodes", "gpus", "size_source")) {
            sizes.forEach((vc, s) -> vcs.row(vc, s.nodes(), s.nodes() * VirtualClusterSizes.GPUS_PER_NODE, s.source()));
        }
        charts(out, results, utilisation);
        summary(out, results, sizes, inputs, sizingNote);
    }

    private static void charts(final Path out, final List<PhillyResult> results, final List<double[]> utilisation) {
        final XYSeriesCollection queue = new XYSeriesCollection();
        final XYSeriesCollection jct = new XYSeriesCollection();
        final XYSeriesCollection util = new XYSeriesCollection();
        for (int p = 0; p < results.size(); p++) {
            final PhillyResult r = results.get(p);
            final List<JobResult> done = r.finished();
            queue.addSeries(Charts.cdf(r.policy().name(), done.stream().mapToLong(JobResult::queueingSeconds).toArray(), 1));
            jct.addSeries(Charts.cdf(r.policy().name(), done.stream().mapToLong(JobResult::completionSeconds).toArray(), 1));
            final XYSeries u = new XYSeries(r.policy().name());
            final double[] values = utilisation.get(p);
            for (int h = 0; h < values.length; h++) {
                u.add(h / 24.0, 100 * values[h]);
            }
            util.addSeries(u);
        }
        Charts.line(out.resolve("philly_queueing_cdf.png"), "Queueing delay, CDF over jobs (delays under 1 s drawn at 1 s)",
                "queueing delay, seconds (log)", "fraction of jobs", queue, true);
        Charts.line(out.resolve("philly_jct_cdf.png"), "Job completion time, CDF over jobs",
                "JCT, seconds (log)", "fraction of jobs", jct, true);
        Charts.line(out.resolve("philly_utilisation.png"), "Allocated GPUs, % of all virtual clusters' GPUs (hourly)",
                "days since the first submission", "% of GPUs allocated", util, false);
    }

    private static void summary(final Path out, final List<PhillyResult> results, final Map<String, VirtualClusterSizes.Sizing> sizes,
                                final String inputs, final String sizingNote) {
        final StringBuilder md = new StringBuilder();
        md.append("# gpupool simulate: Philly protocol\n\n").append(inputs).append("\n\n");
        md.append("## Average JCT and queueing delay, seconds\n\n");
        md.append("| policy | jobs | rejected | ours avg JCT | ours avg queueing | median queueing | p95 queueing | published (Helios) avg JCT / queueing |\n");
        md.append("|---|---|---|---|---|---|---|---|\n");
        for (PhillyResult r : results) {
            final double[] published = Published.HELIOS_PHILLY_S.get(r.policy().name());
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %s |\n",
                    r.policy().name(), r.finished().size(), r.rejectedCount(), r.averageJctSeconds(), r.averageQueueingSeconds(),
                    r.queueingQuantileSeconds(0.5), r.queueingQuantileSeconds(0.95),
                    published == null ? "-" : String.format(Locale.ROOT, "%.0f / %.0f", published[0], published[1])));
        }
        for (String name : List.of("fifo", "sjf", "qssf")) {
            if (results.stream().noneMatch(r -> r.policy().name().equals(name))) {
                final double[] p = Published.HELIOS_PHILLY_S.get(name);
                md.append(String.format(Locale.ROOT, "| %s (not run) | | | | | | | %.0f / %.0f |\n", name, p[0], p[1]));
            }
        }
        md.append(String.format(Locale.ROOT, "%nThe real Philly scheduler's own average queueing delay over the whole trace was %.0f s.%n%n",
                Published.PHILLY_REAL_AVG_QUEUE_S));
        md.append("## Policies\n\n");
        results.forEach(r -> md.append("- **").append(r.policy().name()).append("**: ").append(r.policy().description()).append('\n'));
        md.append("\n## Virtual clusters (8-GPU nodes)\n\n");
        md.append(sizingNote).append("\n\n");
        md.append("| virtual cluster | nodes | GPUs | source |\n|---|---|---|---|\n");
        sizes.forEach((vc, s) -> md.append(String.format(Locale.ROOT, "| %s | %d | %d | %s |\n", vc, s.nodes(),
                s.nodes() * VirtualClusterSizes.GPUS_PER_NODE, s.source())));
        md.append("\n## Files\n\n- `philly_jobs.csv`: per policy and job: submit, start, end, queueing, JCT (empty start = rejected).\n");
        md.append("- `philly_utilisation.csv`, `philly_utilisation.png`: allocated GPU share, hourly.\n");
        md.append("- `philly_queueing_cdf.png`, `philly_jct_cdf.png`: distributions over jobs.\n");
        md.append("- `philly_virtual_clusters.csv`: the VC sizes used.\n");
        try {
            Files.writeString(out.resolve("summary.md"), md.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write summary", e);
        }
    }
}
