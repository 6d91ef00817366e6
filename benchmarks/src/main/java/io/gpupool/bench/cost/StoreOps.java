package io.gpupool.bench.cost;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * How many times the processors called each state store, read off Kafka Streams' own store metrics (the metered
 * layer, above the record cache: the calls the scheduler's code makes, not what reaches RocksDB).
 * <p>
 * Streams records store calls at DEBUG level and only as windowed rates ({@code put-rate}, ...), no totals. With
 * two samples of a window W, a rate is the calls counted since the sensor's first record divided by
 * (elapsed + W). The bench's own scheduler runs with W = {@value #WINDOW_MS} ms (about 31 years), so that
 * calls = rate x W / 1000 to within elapsed / W (1e-7 for a run of minutes): a lifetime count read off a rate.
 * That window is {@link #settings() set} for this scheduler instance only; every other rate it reports (Prometheus)
 * becomes a lifetime average too.
 */
final class StoreOps {
    static final long WINDOW_MS = 1_000_000_000_000L;
    /** The store calls counted; flush, commit and restore are left out (per commit or per restore, not per request). */
    static final Set<String> OPERATIONS = Set.of("put", "put-if-absent", "put-all", "get", "delete", "range",
            "prefix-scan", "all");

    private StoreOps() {
    }

    /** The client settings that make the counts readable: DEBUG recording level and the window above. */
    static Properties settings() {
        final Properties p = new Properties();
        p.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG");
        p.put(StreamsConfig.METRICS_SAMPLE_WINDOW_MS_CONFIG, Long.toString(WINDOW_MS));
        p.put(StreamsConfig.METRICS_NUM_SAMPLES_CONFIG, "2");
        return p;
    }

    /** Calls so far per store and operation ({@code placer-tail} -> {@code put} -> n), summed over tasks. */
    static Map<String, Map<String, Long>> count(final KafkaStreams streams) {
        final Map<String, Map<String, Double>> rates = new TreeMap<>();
        for (final Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            final MetricName n = e.getKey();
            if (!n.group().equals("stream-state-metrics") || !n.name().endsWith("-rate")) {
                continue;
            }
            final String op = n.name().substring(0, n.name().length() - "-rate".length());
            final String store = storeOf(n);
            if (store != null && OPERATIONS.contains(op) && e.getValue().metricValue() instanceof Double rate) {
                rates.computeIfAbsent(store, s -> new TreeMap<>()).merge(op, rate, Double::sum);
            }
        }
        final Map<String, Map<String, Long>> calls = new TreeMap<>();
        rates.forEach((store, ops) -> ops.forEach((op, rate) -> calls.computeIfAbsent(store, s -> new TreeMap<>())
                .put(op, Math.round(rate * WINDOW_MS / 1000.0))));
        return calls;
    }

    /** The store a metric is about: its {@code *-state-id} tag ({@code rocksdb-state-id}, {@code in-memory-state-id}). */
    private static String storeOf(final MetricName n) {
        for (final Map.Entry<String, String> t : n.tags().entrySet()) {
            if (t.getKey().endsWith("-state-id")) {
                return t.getValue();
            }
        }
        return null;
    }

    /** {@code after - before}, per store and operation. */
    static Map<String, Map<String, Long>> between(final Map<String, Map<String, Long>> before,
                                                  final Map<String, Map<String, Long>> after) {
        final Map<String, Map<String, Long>> d = new TreeMap<>();
        after.forEach((store, ops) -> ops.forEach((op, n) -> d.computeIfAbsent(store, s -> new TreeMap<>())
                .put(op, n - before.getOrDefault(store, Map.of()).getOrDefault(op, 0L))));
        return d;
    }
}
