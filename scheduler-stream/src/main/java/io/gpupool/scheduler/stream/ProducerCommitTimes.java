package io.gpupool.scheduler.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each stream thread's producer has spent committing transactions (flush, send-offsets and commit times,
 * cumulative, in ns), for {@link CommitCadence}. A processor sees only the Streams metrics; the embedded clients'
 * are on the {@code KafkaStreams} client, so whoever creates it binds them here ({@link #readFrom}).
 */
public final class ProducerCommitTimes {
    private static final List<String> COMMIT_TIMES = List.of("flush-time-ns-total", "txn-send-offsets-time-ns-total",
            "txn-commit-time-ns-total");
    /** Streams names a thread's producer after the thread (exactly-once v2: one producer per thread). */
    private static final String PRODUCER_SUFFIX = "-producer";
    private static final String PRODUCER_GROUP = "producer-metrics";
    /** How long a thread whose producer was not found waits before the client's metrics are searched again. */
    private static final long RETRY_MS = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(ProducerCommitTimes.class);

    private volatile Supplier<Map<MetricName, ? extends Metric>> clientMetrics;
    /** Per stream thread name, its producer's commit-time metrics (found once: reading all client metrics is not cheap). */
    private final Map<String, List<Metric>> byThread = new ConcurrentHashMap<>();
    private final Map<String, Long> notFoundAtMs = new ConcurrentHashMap<>();

    /** Binds the metrics of the Streams client the processors run in ({@code streams::metrics}). */
    public void readFrom(final Supplier<Map<MetricName, ? extends Metric>> metrics) {
        this.clientMetrics = metrics;
    }

    /** The time the producer of stream thread {@code thread} has spent committing, in ns; NaN while not known. */
    public double nanos(final String thread, final long nowMs) {
        List<Metric> metrics = byThread.get(thread);
        if (metrics == null) {
            final Supplier<Map<MetricName, ? extends Metric>> client = clientMetrics;
            final Long missed = notFoundAtMs.get(thread);
            if (client == null || missed != null && nowMs - missed < RETRY_MS) {
                return Double.NaN;
            }
            metrics = find(client.get(), thread + PRODUCER_SUFFIX);
            if (metrics == null) {
                LOG.debug("no producer commit times for stream thread {} yet", thread);
                notFoundAtMs.put(thread, nowMs);
                return Double.NaN;
            }
            LOG.debug("producer commit times for stream thread {} found", thread);
            byThread.put(thread, metrics);
        }
        double sum = 0;
        for (final Metric m : metrics) {
            sum += ((Number) m.metricValue()).doubleValue();
        }
        return sum;
    }

    /**
     * The time every stream thread's producer of a Streams client has spent committing, in ns, from the client's
     * metrics ({@code streams.metrics()}): for a reader outside the threads, such as a benchmark's progress line.
     */
    public static double allThreadsNanos(final Map<MetricName, ? extends Metric> all) {
        double sum = 0;
        for (final var e : all.entrySet()) {
            final MetricName n = e.getKey();
            final String client = n.tags().get("client-id");
            if (COMMIT_TIMES.contains(n.name()) && n.group().equals(PRODUCER_GROUP) && client != null
                    && client.contains("-StreamThread-") && client.endsWith(PRODUCER_SUFFIX)
                    && e.getValue().metricValue() instanceof Number v && Double.isFinite(v.doubleValue())) {
                sum += v.doubleValue();
            }
        }
        return sum;
    }

    private static List<Metric> find(final Map<MetricName, ? extends Metric> all, final String producerClientId) {
        final List<Metric> found = new ArrayList<>();
        for (final String name : COMMIT_TIMES) {
            for (final var e : all.entrySet()) {
                final MetricName n = e.getKey();
                if (n.name().equals(name) && n.group().equals(PRODUCER_GROUP)
                        && producerClientId.equals(n.tags().get("client-id"))) {
                    found.add(e.getValue());
                    break;
                }
            }
        }
        return found.size() == COMMIT_TIMES.size() ? found : null;
    }
}
