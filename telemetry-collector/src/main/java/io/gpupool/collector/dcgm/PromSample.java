package io.gpupool.collector.dcgm;

import java.util.Map;

/**
 * One series line of Prometheus text. {@code value} is null when the exporter wrote a DCGM blank
 * sentinel or something that is no number.
 */
public record PromSample(String name, Map<String, String> labels, Double value) {
    public PromSample {
        labels = Map.copyOf(labels);
    }

    /** Label by name, ignoring case: dcgm-exporter renamed {@code Hostname} to {@code hostname}. */
    public String label(final String key) {
        final String exact = labels.get(key);
        if (exact != null) {
            return exact;
        }
        for (final Map.Entry<String, String> e : labels.entrySet()) {
            if (e.getKey().equalsIgnoreCase(key)) {
                return e.getValue();
            }
        }
        return null;
    }
}
