package io.gpupool.scheduler.stream;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The scheduler's own meters (Prometheus names gpupool_*). Pool gauges (GPUs by state and model,
 * queue depth, fragmentation) are registered by {@link PoolGauges}. The wall clock is read here
 * only to measure latency and lag, never to decide anything.
 */
public final class SchedulerMetrics {
    private final MeterRegistry registry;
    private final Timer latency;
    private final Timer snapshot;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final AtomicLong lastJournalTimestampMs = new AtomicLong(-1);

    public SchedulerMetrics(final MeterRegistry registry) {
        this.registry = registry;
        this.latency = Timer.builder("gpupool.request.to.decision")
                .description("From the job record's timestamp to its first decision leaving the placer")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry);
        this.snapshot = Timer.builder("gpupool.engine.snapshot")
                .description("Time the placer stops to snapshot a pool's engine (store and snapshot topic): its tail latency")
                .register(registry);
        registry.gauge("gpupool.journal.lag.seconds", lastJournalTimestampMs, t -> t.get() < 0 ? 0
                : Math.max(0, System.currentTimeMillis() - t.get()) / 1000.0);
    }

    public MeterRegistry registry() {
        return registry;
    }

    private Counter counter(final String name, final String... tags) {
        final String key = name + String.join(",", tags);
        return counters.computeIfAbsent(key, k -> Counter.builder(name).tags(tags).register(registry));
    }

    void deadLettered(final String sourceTopic, final String errorClass) {
        counter("gpupool.dlq.records", "topic", sourceTopic, "error", simple(errorClass)).increment();
    }

    /** A journal entry the engine threw on, undone and skipped (an engine bug or a failpoint). */
    void entrySkipped(final String pool) {
        counter("gpupool.journal.skipped", "pool", pool).increment();
    }

    void telemetryDropped(final String topic, final String reason) {
        counter("gpupool.telemetry.dropped", "topic", topic, "reason", reason).increment();
    }

    /** An input record's time was later than the scheduler's clock allows (or invalid) and was clamped. */
    void clockClamped(final String topic, final String why) {
        counter("gpupool.clock.clamped", "topic", topic, "why", why).increment();
    }

    void nodeRemoved(final String pool) {
        counter("gpupool.nodes.removed", "pool", pool).increment();
    }

    void journaled(final String kind) {
        counter("gpupool.journal.appends", "kind", kind).increment();
    }

    /** A stage-1 job route entry closed by the placer's notice ({@code expired} record, or {@code rejected} submit). */
    void routeEnded(final String why) {
        counter("gpupool.job.route.ends", "why", why).increment();
    }

    void decision(final String pool, final String outcome, final String reason) {
        counter("gpupool.decisions", "pool", pool, "outcome", outcome, "reason", reason).increment();
    }

    /** A job event the engine did not apply: STALE (late, of an earlier placement) or REFUSED. */
    void jobEventNoted(final String pool, final String kind) {
        counter("gpupool.job.events.disregarded", "pool", pool, "kind", kind).increment();
    }

    void preemption(final String pool) {
        counter("gpupool.preemptions", "pool", pool).increment();
    }

    void requestToDecision(final long millis) {
        latency.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    void snapshotTaken(final long wallMs) {
        snapshot.record(wallMs, TimeUnit.MILLISECONDS);
    }

    void journalApplied(final long entryTimestampMs) {
        lastJournalTimestampMs.set(entryTimestampMs);
    }

    /** Wall-clock now, for latency only. */
    static long wallNowMs() {
        return System.currentTimeMillis();
    }

    public Timer latencyTimer() {
        return latency;
    }

    private static String simple(final String className) {
        final int dot = className.lastIndexOf('.');
        return dot < 0 ? className : className.substring(dot + 1);
    }
}
