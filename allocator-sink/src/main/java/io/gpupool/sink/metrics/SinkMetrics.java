package io.gpupool.sink.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The sink's metrics, scraped at /metrics as gpupool_sink_*: commands applied, failed, duplicate,
 * stale and dead-lettered, apply latency, command lag (issue to apply), job events, running parts,
 * and starts that waited for a stop on their GPUs.
 */
public final class SinkMetrics {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final String applier;
    private final Timer applyLatency;
    private final Timer commandLag;

    public SinkMetrics(final String applier) {
        this.applier = applier;
        this.applyLatency = Timer.builder("gpupool.sink.apply.latency")
                .description("Time to apply one command on the node, retries included")
                .tag("applier", applier).publishPercentiles(0.5, 0.99).register(registry);
        this.commandLag = Timer.builder("gpupool.sink.command.lag")
                .description("From the command's record timestamp to its application")
                .tag("applier", applier).publishPercentiles(0.5, 0.99).register(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public void bindRunning(final Supplier<Number> running) {
        Gauge.builder("gpupool.sink.running.jobs", running, s -> s.get().doubleValue())
                .description("Job parts running on the nodes this sink serves").tag("applier", applier)
                .strongReference(true).register(registry); // a method reference has no other referent: keep it
    }

    public void applied(final String type, final Duration took, final long lagMillis) {
        counter("gpupool.sink.commands.applied", "Commands applied", type).increment();
        applyLatency.record(took);
        commandLag.record(Duration.ofMillis(Math.max(0L, lagMillis)));
    }

    public void failed(final String type) {
        counter("gpupool.sink.commands.failed", "Commands that failed after all retries", type).increment();
    }

    public void retried(final String type) {
        counter("gpupool.sink.commands.retries", "Attempts that failed and were retried", type).increment();
    }

    public void duplicate(final String type) {
        counter("gpupool.sink.commands.duplicate", "Commands skipped because they were applied before", type).increment();
    }

    /** A stop naming a placement other than the part running for its job on its node: it stopped nothing. */
    public void staleStop(final String type) {
        counter("gpupool.sink.commands.stale.stops", "Stops that named another placement than the running part's",
                type).increment();
    }

    /** A part placed on GPUs whose previous part was still being stopped: it started only after that stop. */
    public void startWaited() {
        Counter.builder("gpupool.sink.starts.waited").description("Starts that waited for a stop on their GPUs")
                .tag("applier", applier).register(registry).increment();
    }

    /**
     * A start refused because the part before it on one of its GPUs may still run (its stop failed,
     * or was not over within the bound): reported EVICTED, never started.
     */
    public void startRefused() {
        Counter.builder("gpupool.sink.starts.refused")
                .description("Starts refused because a part whose stop failed or overran may still run on their GPUs")
                .tag("applier", applier).register(registry).increment();
    }

    public void deadLettered() {
        Counter.builder("gpupool.sink.commands.dead.lettered").description("Undecodable command records sent to the DLQ")
                .tag("applier", applier).register(registry).increment();
    }

    public void event(final String type) {
        Counter.builder("gpupool.sink.job.events").description("Job events published").tag("applier", applier)
                .tag("type", type).register(registry).increment();
    }

    public double count(final String name, final String type) {
        final Counter c = registry.find(name).tag("type", type).counter();
        return c == null ? 0 : c.count();
    }

    /** A counter without a type tag; 0 when it never counted. */
    public double count(final String name) {
        final Counter c = registry.find(name).counter();
        return c == null ? 0 : c.count();
    }

    private Counter counter(final String name, final String description, final String type) {
        return Counter.builder(name).description(description).tag("applier", applier).tag("type", type)
                .register(registry);
    }
}
