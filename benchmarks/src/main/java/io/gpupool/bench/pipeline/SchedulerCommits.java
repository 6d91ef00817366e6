package io.gpupool.bench.pipeline;

import io.gpupool.scheduler.stream.ProducerCommitTimes;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The bench scheduler's transaction commits between two progress lines: how many its stream threads made and what
 * one took on average (the producer's flush, send-offsets and commit times: what {@code CommitCadence} paces by). A
 * decision is visible only after its commit, so commits that get dearer are a wait every request of a paced load
 * pays; the progress line shows them beside the latency they may explain.
 */
final class SchedulerCommits {
    private final Supplier<Map<MetricName, ? extends Metric>> metrics;
    private double lastCommits;
    private double lastCommitNanos;

    /** @param metrics the scheduler's Streams client's metrics ({@code streams::metrics}) */
    SchedulerCommits(final Supplier<Map<MetricName, ? extends Metric>> metrics) {
        this.metrics = metrics;
        final Map<MetricName, ? extends Metric> now = metrics.get();
        lastCommits = commits(now);
        lastCommitNanos = ProducerCommitTimes.allThreadsNanos(now);
    }

    /** {@code commits_5s=N commit_ms=X}: commits since the last call and their mean time (-1 without a commit). */
    String line() {
        final Map<MetricName, ? extends Metric> now = metrics.get();
        final double commitsNow = commits(now);
        final double nanosNow = ProducerCommitTimes.allThreadsNanos(now);
        final double commits = commitsNow - lastCommits;
        final double nanos = nanosNow - lastCommitNanos;
        lastCommits = commitsNow;
        lastCommitNanos = nanosNow;
        final String mean = commits > 0 ? String.format(Locale.ROOT, "%.1f", nanos / commits / 1e6) : "-1";
        return "commits_5s=" + Math.round(commits) + " commit_ms=" + mean;
    }

    /** Commits of every stream thread so far. */
    private static double commits(final Map<MetricName, ? extends Metric> all) {
        double sum = 0;
        for (final var e : all.entrySet()) {
            final MetricName n = e.getKey();
            if (n.group().equals("stream-thread-metrics") && n.name().equals("commit-total")
                    && e.getValue().metricValue() instanceof Number v && Double.isFinite(v.doubleValue())) {
                sum += v.doubleValue();
            }
        }
        return sum;
    }
}
