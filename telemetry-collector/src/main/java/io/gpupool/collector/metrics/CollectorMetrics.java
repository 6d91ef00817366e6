package io.gpupool.collector.metrics;

import io.gpupool.collector.publish.TelemetryPublisher;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The collector's own health: polls, poll errors, records sent and dropped, buffer depth. */
public final class CollectorMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final HardwareGauges hardware = new HardwareGauges(registry);
    private final Timer pollTimer = Timer.builder("gpupool.collector.poll").description("Time one poll of all sources took").register(registry);

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public HardwareGauges hardware() {
        return hardware;
    }

    public Timer pollTimer() {
        return pollTimer;
    }

    public void pollError(final String source) {
        Counter.builder("gpupool.collector.poll.errors").description("Polls of a source that failed")
                .tag("source", source).register(registry).increment();
    }

    public void warnings(final String source, final int count) {
        Counter.builder("gpupool.collector.skipped.lines").description("Lines or fields a parser skipped with a warning")
                .tag("source", source).register(registry).increment(count);
    }

    public void bindPublisher(final TelemetryPublisher publisher) {
        FunctionCounter.builder("gpupool.collector.records.sent", publisher, p -> p.stats().sent())
                .description("Records the broker acknowledged").register(registry);
        FunctionCounter.builder("gpupool.collector.records.dropped", publisher, p -> p.stats().dropped())
                .description("Telemetry records dropped: buffer full while Kafka was unreachable, or delivery failed").register(registry);
        Gauge.builder("gpupool.collector.buffer.records", publisher, p -> p.stats().buffered())
                .description("Records waiting in the bounded buffer").register(registry);
    }

    public MeterRegistry meterRegistry() {
        return registry;
    }
}
