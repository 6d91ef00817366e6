package io.gpupool.bench.cost;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The cost bench's figures per decided request, named after the topic or store they are about. */
final class CostFigures {
    private CostFigures() {
    }

    /**
     * Per topic that took offsets: {@code topic.<name>.records_per_request}, {@code .markers_per_request},
     * {@code .payload_bytes_per_request}, {@code .disk_bytes_per_request}; then the same summed over what the
     * scheduler wrote ({@code scheduler_writes.*}), the bench's inputs left out. Names lose the run's prefix:
     * {@code journal}, {@code journal.snapshots}, {@code placer-tail-changelog}, {@code jobs-by-id-repartition}.
     */
    static Map<String, String> topics(final Map<String, TopicCost> written, final String prefix, final String appId,
                                      final Set<String> inputs, final long requests) {
        final Map<String, String> f = new LinkedHashMap<>();
        long records = 0;
        long markers = 0;
        long payload = 0;
        long disk = 0;
        for (final Map.Entry<String, TopicCost> e : written.entrySet()) {
            final TopicCost c = e.getValue();
            if (c.offsets() == 0) {
                continue;
            }
            final String name = "topic." + shortName(e.getKey(), prefix, appId);
            put(f, name, c.records(), c.markers(), c.payloadBytes(), c.diskBytes(), requests);
            if (!inputs.contains(e.getKey())) {
                records += c.records();
                markers += c.markers();
                payload += c.payloadBytes();
                disk += c.diskBytes();
            }
        }
        put(f, "scheduler_writes", records, markers, payload, disk, requests);
        return f;
    }

    private static void put(final Map<String, String> f, final String name, final long records, final long markers,
                            final long payload, final long disk, final long requests) {
        f.put(name + ".records_per_request", CostBench.perRequest(records, requests));
        f.put(name + ".markers_per_request", CostBench.perRequest(markers, requests));
        f.put(name + ".payload_bytes_per_request", CostBench.perRequest(payload, requests));
        f.put(name + ".disk_bytes_per_request", CostBench.perRequest(disk, requests));
    }

    /** Per store: {@code store.<name>.<operation>_per_request} for each operation it saw, and its total calls. */
    static Map<String, String> stores(final Map<String, Map<String, Long>> calls, final long requests) {
        final Map<String, String> f = new LinkedHashMap<>();
        long all = 0;
        for (final Map.Entry<String, Map<String, Long>> store : calls.entrySet()) {
            long total = 0;
            for (final Map.Entry<String, Long> op : store.getValue().entrySet()) {
                if (op.getValue() != 0) {
                    f.put("store." + store.getKey() + "." + op.getKey() + "_per_request",
                            CostBench.perRequest(op.getValue(), requests));
                    total += op.getValue();
                }
            }
            f.put("store." + store.getKey() + ".calls_per_request", CostBench.perRequest(total, requests));
            all += total;
        }
        f.put("store_calls_per_request", CostBench.perRequest(all, requests));
        return f;
    }

    private static String shortName(final String topic, final String prefix, final String appId) {
        if (topic.startsWith(appId + "-")) {
            return topic.substring(appId.length() + 1);
        }
        return topic.startsWith(prefix + ".") ? topic.substring(prefix.length() + 1) : topic;
    }
}
