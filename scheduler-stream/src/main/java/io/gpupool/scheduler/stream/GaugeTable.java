package io.gpupool.scheduler.stream;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A gauge with one series per tag set, replaced as a whole at each refresh. A series that is in two refreshes
 * in a row stays registered in between and only its value changes: Micrometer's {@code MultiGauge} with
 * overwrite removes and re-adds every row, so a scrape that landed inside a refresh missed series (seen as a
 * pool's fragmentation absent from a scrape that had its GPU gauges). A series no longer in the table is
 * removed; a new one is added.
 */
final class GaugeTable {
    private final MultiGauge gauge;
    private Map<Tags, Value> series = Map.of();

    GaugeTable(final String name, final String description, final MeterRegistry registry) {
        this.gauge = MultiGauge.builder(name).description(description).register(registry);
    }

    /** Called from one thread (the refresh); scrapes read the values from others. */
    void update(final Map<Tags, ? extends Number> values) {
        final Map<Tags, Value> next = new LinkedHashMap<>();
        final List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (final Map.Entry<Tags, ? extends Number> e : values.entrySet()) {
            final Value v = series.getOrDefault(e.getKey(), new Value());
            v.value = e.getValue().doubleValue();
            next.put(e.getKey(), v);
            rows.add(MultiGauge.Row.of(e.getKey(), v, Value::get));
        }
        gauge.register(rows, false);
        series = next;
    }

    private static final class Value {
        private volatile double value;

        double get() {
            return value;
        }
    }
}
