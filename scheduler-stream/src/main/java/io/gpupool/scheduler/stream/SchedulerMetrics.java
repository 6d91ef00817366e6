package io.gpupool.scheduler.stream;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The scheduler's own meters (Prometheus names gpupool_*). Pool gauges (GPUs by state and model,
 * queue depth, fragmentation) are registered by {@link PoolGauges}. The wall clock is read here
 * only to measure latency and lag, never to decide anything.
 */
public final class SchedulerMetrics {
    /**
     * Tenants the queue-wait timer tells apart; the tenants first seen after them share tenant="other". A
     * tenant is any string a submitter writes, and each label costs a histogram's series.
     */
    static final int MAX_WAIT_TENANTS = 50;
    /** Queue-wait histogram buckets: from a job placed at once to one that waited a day. */
    private static final Duration[] WAIT_BUCKETS = {Duration.ofSeconds(1), Duration.ofSeconds(5),
        Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(2),
        Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofHours(1),
        Duration.ofHours(2), Duration.ofHours(6), Duration.ofHours(12), Duration.ofHours(24)};

    private final MeterRegistry registry;
    private final Timer latency;
    private final Timer snapshot;
    private final Counter keyedOnTheirPartition;
    private final Counter keyedAcrossTheHop;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final AtomicLong lastJournalTimestampMs = new AtomicLong(-1);
    private final Map<String, Timer> queueWaits = new ConcurrentHashMap<>();
    private final Set<String> waitTenants = ConcurrentHashMap.newKeySet();
    private final ProducerCommitTimes commitTimes = new ProducerCommitTimes();

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
        // a share of "repartition" says a producer partitions job records by something else than murmur2(job id)
        this.keyedOnTheirPartition = keyedCounter(registry, "direct");
        this.keyedAcrossTheHop = keyedCounter(registry, "repartition");
        registry.gauge("gpupool.journal.lag.seconds", lastJournalTimestampMs, t -> t.get() < 0 ? 0
                : Math.max(0, System.currentTimeMillis() - t.get()) / 1000.0);
    }

    /** The stream threads' transaction commit times ({@link CommitCadence}); the app binds its Streams client's metrics. */
    public ProducerCommitTimes commitTimes() {
        return commitTimes;
    }

    private static Counter keyedCounter(final MeterRegistry registry, final String path) {
        return Counter.builder("gpupool.job.records.keyed").tag("path", path)
                .description("Job commands and events by how they reached their job's task: already on its partition "
                        + "(direct), or across the repartition by job id").register(registry);
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

    /** A job record keyed by stage 1: routed in the task that read it, or sent across the repartition. */
    void jobRecordKeyed(final boolean onItsPartition) {
        (onItsPartition ? keyedOnTheirPartition : keyedAcrossTheHop).increment();
    }

    /** A new job's submit shed by stage 1 ({@link JournalBacklog}): the placer rejects it OVERLOADED. */
    void shed(final String pool) {
        counter("gpupool.requests.shed", "pool", pool).increment();
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

    /**
     * A job's first placement: how long it waited from its submit, in stream time (the journal's, so it agrees
     * with {@code explain} and the audit), by pool and tenant.
     */
    void queueWaited(final String pool, final String tenant, final long waitMs) {
        final String label = waitTenants.contains(tenant) || waitTenants.size() < MAX_WAIT_TENANTS && waitTenants.add(tenant)
                ? tenant : "other";
        queueWaits.computeIfAbsent(pool + '\n' + label, k -> Timer.builder("gpupool.queue.wait")
                .description("From a job's submit to its first placement, in stream time, by pool and tenant")
                .tags("pool", pool, "tenant", label)
                .serviceLevelObjectives(WAIT_BUCKETS)
                .register(registry)).record(Math.max(0, waitMs), TimeUnit.MILLISECONDS);
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
