package io.gpupool.bench.pipeline;

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
    private static final String THREAD_GROUP = "stream-thread-metrics";
    private static final String PRODUCER_GROUP = "producer-metrics";

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;
    private double lastCommits;
    private double lastCommitNanos;

    /** @param metrics the scheduler's Streams client's metrics ({@code streams::metrics}) */
    SchedulerCommits(final Supplier<Map<MetricName, ? extends Metric>> metrics) {
        this.metrics = metrics;
        final double[] now = totals();
        lastCommits = now[0];
        lastCommitNanos = now[1];
    }

    /** {@code commits_5s=N commit_ms=X}: commits since the last call and their mean time (-1 without a commit). */
    String line() {
        final double[] now = totals();
        final double commits = now[0] - lastCommits;
        final double nanos = now[1] - lastCommitNanos;
        lastCommits = now[0];
        lastCommitNanos = now[1];
        final String mean = commits > 0 ? String.format(Locale.ROOT, "%.1f", nanos / commits / 1e6) : "-1";
        return "commits_5s=" + Math.round(commits) + " commit_ms=" + mean;
    }

    /** Commits of every stream thread, and the time their producers spent committing (ns). */
    private double[] totals() {
        double commits = 0;
        double nanos = 0;
        for (final Map.Entry<MetricName, ? extends Metric> e : metrics.get().entrySet()) {
            final MetricName n = e.getKey();
            final boolean threadCommits = n.group().equals(THREAD_GROUP) && n.name().equals("commit-total");
            final boolean producerTime = n.group().equals(PRODUCER_GROUP) && isStreamThreadProducer(n)
                    && (n.name().equals("flush-time-ns-total") || n.name().equals("txn-send-offsets-time-ns-total")
                    || n.name().equals("txn-commit-time-ns-total"));
            if (threadCommits || producerTime) {
                final Object v = e.getValue().metricValue();
                final double d = v instanceof Number number ? number.doubleValue() : 0;
                if (Double.isFinite(d)) {
                    if (threadCommits) {
                        commits += d;
                    } else {
                        nanos += d;
                    }
                }
            }
        }
        return new double[] {commits, nanos};
    }

    /** Streams names each stream thread's producer after the thread (exactly-once v2: one producer per thread). */
    private static boolean isStreamThreadProducer(final MetricName n) {
        final String client = n.tags().get("client-id");
        return client != null && client.contains("-StreamThread-") && client.endsWith("-producer");
    }
}
