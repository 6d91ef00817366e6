package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GaugeTableTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final GaugeTable table = new GaugeTable("gpupool.test", "a test gauge", registry);

    @Test
    void aSeriesInTwoRefreshesStaysRegisteredAndOnlyItsValueChanges() {
        table.update(Map.of(Tags.of("pool", "a"), 1, Tags.of("pool", "b"), 2.5));
        final Gauge a = gauge("a");
        assertThat(a.value()).isEqualTo(1.0);

        table.update(Map.of(Tags.of("pool", "a"), 7, Tags.of("pool", "b"), 2.5));

        // the same meter: a scrape between the two refreshes could not have missed it
        assertThat(gauge("a")).isSameAs(a);
        assertThat(a.value()).isEqualTo(7.0);
        assertThat(gauge("b").value()).isEqualTo(2.5);
    }

    @Test
    void aSeriesGoneFromTheTableIsRemovedAndANewOneAdded() {
        table.update(Map.of(Tags.of("pool", "a"), 1, Tags.of("pool", "b"), 2));
        final Map<Tags, Number> next = new LinkedHashMap<>();
        next.put(Tags.of("pool", "b"), 3);
        next.put(Tags.of("pool", "c"), 4);
        table.update(next);

        assertThat(registry.find("gpupool.test").tag("pool", "a").gauge()).isNull();
        assertThat(gauge("b").value()).isEqualTo(3.0);
        assertThat(gauge("c").value()).isEqualTo(4.0);
        assertThat(registry.find("gpupool.test").gauges()).hasSize(2);

        table.update(Map.of());
        assertThat(registry.find("gpupool.test").gauges()).isEmpty();
    }

    private Gauge gauge(final String pool) {
        final Gauge g = registry.find("gpupool.test").tag("pool", pool).gauge();
        assertThat(g).as("series pool=%s", pool).isNotNull();
        return g;
    }
}
