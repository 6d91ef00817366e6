package io.gpupool.bench.pipeline;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.core.ModelCapacity;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One scheduler (both stages, exactly-once) under an open-loop load that the bench sets rate by rate:
 * telemetry for every node once per second, job requests at the offered rate, and the bench as the sink
 * (it completes each placed job after the job runtime, so the pool does not fill up). One thread offers
 * the requests and reads the decisions, so a request's send time and its first decision are seen alike.
 * A request is decided at its first decision (PLACED, QUEUED, ...); the backlog is the requests sent and
 * not yet decided.
 */
final class PacedPipeline implements AutoCloseable {
    private static final int[] SIZES = {1, 1, 1, 1, 1, 1, 1, 2, 2, 8};
    /** The JIT counts as settled once its compiler takes under this many milliseconds a second (5 % of one core). */
    private static final long SETTLED_JIT_MS_PER_S = 50;
    /** The JIT warm-up's shortest length: its ramp, and a whole progress interval at the full rate after it. */
    private static final long MIN_JIT_WARMUP_MS = 20_000;

    /** A measured window: what was offered in it and how fast it was decided. */
    record Window(int offered, double decidedPerS, long p50Ms, long p99Ms, long measured, long undecided, double shedPerS) {
    }

    /** The overload phase: decisions during it and the seconds after it until its backlog was decided (-1: not within the limit). */
    record Overload(int offered, double decidedPerS, double recoveryS, long undecided, double shedPerS) {
    }

    private record Completion(long dueMs, int seq, String placementId) {
    }

    private final PipelineBenchOptions o;
    private final TopicNames topics;
    private final PrintStream progress;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong telemetrySent = new AtomicLong();
    private final CheckedSends sends = new CheckedSends();
    private final ArrayDeque<Completion> toComplete = new ArrayDeque<>();
    private final BitSet decided = new BitSet();
    private final long start = System.currentTimeMillis();
    private final JitActivity jit = new JitActivity(start);
    private SchedulerApp app;
    private KafkaProducer<String, JobCommand> jobs;
    private KafkaProducer<String, JobEvent> events;
    private KafkaConsumer<String, PlacementDecision> decisions;
    private Thread telemetry;
    private SchedulerLag lag;
    private SchedulerCommits commits;
    private Thread reader;
    private long[] sentAt = new long[1 << 16];
    /** When the bench reported each job COMPLETED (0: not yet), to time its release. */
    private long[] completedAt = new long[1 << 16];
    private int sent;
    private int firstUndecided;
    private long decidedCount;
    private int offeredRate;
    private long nextReport = start + 5_000;
    private long windowFrom = Long.MAX_VALUE;
    private long windowTo = Long.MAX_VALUE;
    private LatencyRecorder latency = new LatencyRecorder();
    /** Latencies of the requests decided since the last progress line: a stall shows up in the line after it. */
    private LatencyRecorder recent = new LatencyRecorder();
    /**
     * COMPLETED report to RELEASED decision, for the releases seen since the last progress line: a scheduler that
     * is behind must still learn promptly of GPUs set free, or the pool fills with ended jobs.
     */
    private LatencyRecorder recentReleases = new LatencyRecorder();
    private long decidedInWindow;
    /** First decisions that were the scheduler shedding the request (REJECTED OVERLOADED): in the window, and in all. */
    private long shedInWindow;
    private long shedCount;

    private PacedPipeline(final PipelineBenchOptions o, final TopicNames topics, final PrintStream progress) {
        this.o = o;
        this.topics = topics;
        this.progress = progress;
    }

    /** A running scheduler holding the bench pool, with telemetry flowing and nothing offered yet. */
    static PacedPipeline start(final PipelineBenchOptions o, final String prefix, final TopicCatalog catalog,
                               final Codecs codecs, final PrintStream progress) throws Exception {
        final PacedPipeline p = new PacedPipeline(o, TopicNames.of(catalog), progress);
        try {
            p.open(prefix, catalog, codecs);
            return p;
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
    }

    private void open(final String prefix, final TopicCatalog catalog, final Codecs codecs) throws Exception {
        app = keep(SchedulerApp.start(PipelineBench.schedulerOptions(o, prefix, catalog)));
        jobs = keep(new KafkaProducer<>(producerConfig(), new StringSerializer(), codecs.serializer()));
        events = keep(new KafkaProducer<>(producerConfig(), new StringSerializer(), codecs.serializer()));
        decisions = keep(new KafkaConsumer<>(PipelineBench.consumerConfig(o.bootstrapServers(), o.clientOverrides(),
                prefix + "-sink"), new StringDeserializer(), codecs.deserializer(PlacementDecision.class)));
        if (!app.awaitRunning(Duration.ofMinutes(2))) {
            throw new IllegalStateException("the scheduler did not start: " + app.streams().state());
        }
        progress.printf("bench: scheduler running; publishing inventory of %d nodes x %d GPUs%n", o.nodes(), o.gpusPerNode());
        try (KafkaProducer<String, NodeInventory> inv = new KafkaProducer<>(producerConfig(), new StringSerializer(),
                codecs.serializer())) {
            PipelineBench.publishPool(o, inv, topics, app.engines(), progress);
        }
        decisions.subscribe(List.of(topics.decisions()));
        lag = keep(new SchedulerLag(o.bootstrapServers(), o.clientOverrides(), PipelineBench.schedulerId(prefix), topics));
        commits = new SchedulerCommits(app.streams()::metrics);
        telemetry = new Thread(() -> telemetry(codecs), "bench-telemetry");
        telemetry.setDaemon(true);
        telemetry.start();
        reader = new Thread(this::readDecisions, "bench-decisions");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Offers {@code rate}/s for {@code warmupMs} (ramping up over its first half, 20 s at most, as load on a
     * service grows: a cold start offered the full rate at once builds a backlog that can outlast the warm-up),
     * then measures {@code measureMs}: the decisions seen in it and the latency of each request sent in it.
     * It goes on offering the rate until every request of the window is decided, for {@code settleMs} at most;
     * those still undecided count as slower than any in the percentiles.
     */
    Window measure(final int rate, final long warmupMs, final long measureMs, final long settleMs) {
        final long from = openWindow(System.currentTimeMillis() + warmupMs, measureMs);
        offer(rate, Math.min(20_000L, warmupMs / 2), from, () -> false);
        final int firstOfWindow = sent();
        offer(rate, 0, from + measureMs, () -> false);
        final int endOfWindow = sent();
        offer(rate, 0, from + measureMs + settleMs, () -> allDecidedBefore(endOfWindow));
        synchronized (this) {
            final long measured = endOfWindow - firstOfWindow;
            final long undecided = measured - decided.get(firstOfWindow, endOfWindow).cardinality();
            windowFrom = Long.MAX_VALUE;
            return new Window(rate, decidedInWindow * 1000.0 / measureMs, latency.percentile(50, undecided),
                    latency.percentile(99, undecided), measured, undecided, shedInWindow * 1000.0 / measureMs);
        }
    }

    /**
     * Offers {@code rate}/s (ramped up over 10 s) until the JIT has settled: its compiler took under
     * {@link #SETTLED_JIT_MS_PER_S} over a whole progress interval, {@link #MIN_JIT_WARMUP_MS} after the start at
     * least, {@code limitMs} at most. A window measured before that measures the compiler as well as the
     * pipeline. Returns the seconds it took; -1 when the limit came first or the JVM does not report its
     * compiler's time (both said on the progress stream).
     */
    double warmUntilCompiled(final int rate, final long limitMs) {
        if (!jit.measured()) {
            progress.println("bench: this JVM does not report its JIT compiler's time: no JIT warm-up");
            return -1;
        }
        final long from = System.currentTimeMillis();
        progress.printf("bench: JIT warm-up: offering %d requests/s until the compiler takes under %d ms a second"
                + " (%d s at most)%n", rate, SETTLED_JIT_MS_PER_S, limitMs / 1000);
        final BooleanSupplier settled = () -> jit.sampledAtMs() >= from + MIN_JIT_WARMUP_MS
                && jit.msPerS() >= 0 && jit.msPerS() < SETTLED_JIT_MS_PER_S;
        offer(rate, 10_000, from + limitMs, settled);
        synchronized (this) {
            if (settled.getAsBoolean()) {
                return (System.currentTimeMillis() - from) / 1000.0;
            }
        }
        progress.printf("bench: warning: the JIT compiler still took %d ms a second after %d s of warm-up%n",
                jit.msPerS(), limitMs / 1000);
        return -1;
    }

    /**
     * Offers twice {@code rate} for {@code overloadMs}, then half of it until every request sent before the
     * overload ended is decided (or the run's recovery limit passes).
     */
    Overload overload(final int rate, final long overloadMs, final long recoveryLimitMs) {
        final long from = openWindow(System.currentTimeMillis(), overloadMs);
        progress.printf("bench: overload: offering %d requests/s for %d s, then %d/s%n", 2 * rate, overloadMs / 1000, rate / 2);
        offer(2 * rate, 0, from + overloadMs, () -> false);
        final int endOfOverload = sent();
        final long overloadEnd = System.currentTimeMillis();
        offer(rate / 2, 0, overloadEnd + recoveryLimitMs, () -> allDecidedBefore(endOfOverload));
        synchronized (this) {
            final boolean recovered = allDecidedBefore(endOfOverload);
            final double recoveryS = recovered ? (System.currentTimeMillis() - overloadEnd) / 1000.0 : -1;
            final long undecided = endOfOverload - decided.get(0, endOfOverload).cardinality();
            windowFrom = Long.MAX_VALUE;
            return new Overload(2 * rate, decidedInWindow * 1000.0 / overloadMs, recoveryS, undecided,
                    shedInWindow * 1000.0 / overloadMs);
        }
    }

    /** Starts counting decisions and latencies for requests sent from {@code from} for {@code lengthMs}; returns {@code from}. */
    private synchronized long openWindow(final long from, final long lengthMs) {
        windowFrom = from;
        windowTo = from + lengthMs;
        latency = new LatencyRecorder();
        decidedInWindow = 0;
        shedInWindow = 0;
        return from;
    }

    private synchronized int sent() {
        return sent;
    }

    /**
     * Offers nothing until every request is decided and the pool's queue is empty, so that the next window
     * starts from an idle scheduler; says so when that takes longer than {@code limitMs}.
     */
    void idle(final long limitMs) {
        final long until = System.currentTimeMillis() + limitMs;
        offer(0, 0, until, () -> allDecidedBefore(sent) && queued() == 0);
        synchronized (this) {
            if (allDecidedBefore(sent) && queued() == 0) {
                return;
            }
            progress.printf("bench: warning: not idle after %d s: %d undecided, %d queued%n", limitMs / 1000,
                    sent - decidedCount, queued());
        }
    }

    /** Telemetry records sent per second since the start. */
    double telemetryPerS() {
        return telemetrySent.get() * 1000.0 / Math.max(1, System.currentTimeMillis() - start);
    }

    private void offer(final int rate, final long rampMs, final long untilMs, final BooleanSupplier done) {
        final long from = System.currentTimeMillis();
        final int base;
        synchronized (this) {
            offeredRate = rate;
            base = sent;
        }
        while (true) {
            final long now = System.currentTimeMillis();
            synchronized (this) {
                if (now >= untilMs || done.getAsBoolean()) {
                    sends.check();
                    return;
                }
                final long due = base + PipelineBench.due(now - from, rate, rampMs);
                while (sent < due) {
                    send(now);
                }
                completeDueJobs(now);
                report(now);
            }
            sleep(1);
        }
    }

    private void send(final long now) {
        if (sent == sentAt.length) {
            sentAt = Arrays.copyOf(sentAt, sent * 2);
        }
        final int seq = sent++;
        final String id = PipelineBench.jobId(seq);
        sentAt[seq] = now;
        jobs.send(new ProducerRecord<>(topics.jobs(), null, now, id,
                BenchFabric.submit(PipelineBench.POOL, id, SIZES[seq % SIZES.length])), sends);
    }

    /**
     * The reader thread: decisions are read as they come, on a thread of their own, so that a decision's time
     * is when a consumer could have seen it, not when the offering loop next looks.
     */
    private void readDecisions() {
        while (!stop.get()) {
            final ConsumerRecords<String, PlacementDecision> records = decisions.poll(Duration.ofMillis(100));
            final long now = System.currentTimeMillis();
            synchronized (this) {
                for (final ConsumerRecord<String, PlacementDecision> r : records) {
                    decided(r, now);
                }
            }
        }
    }

    private void decided(final ConsumerRecord<String, PlacementDecision> r, final long now) {
        final int seq = PipelineBench.seqOf(r.key());
        if (seq < 0 || seq >= sent) {
            return;
        }
        if (!decided.get(seq)) {
            decided.set(seq);
            decidedCount++;
            recent.record(now - sentAt[seq]);
            if (sentAt[seq] >= windowFrom && sentAt[seq] < windowTo) {
                latency.record(now - sentAt[seq]);
            }
            final boolean shed = r.value().getOutcome() == DecisionOutcome.REJECTED
                    && JournalApplier.OVERLOADED.equals(r.value().getReasonCode());
            shedCount += shed ? 1 : 0;
            if (now >= windowFrom && now < windowTo) {
                decidedInWindow++;
                shedInWindow += shed ? 1 : 0;
            }
        }
        if (r.value().getOutcome() == DecisionOutcome.PLACED) {
            toComplete.add(new Completion(now + o.jobRuntimeMs(), seq, r.value().getDecisionId()));
        } else if (r.value().getOutcome() == DecisionOutcome.RELEASED && seq < completedAt.length && completedAt[seq] > 0) {
            recentReleases.record(now - completedAt[seq]);
            completedAt[seq] = 0;
        }
    }

    private void completeDueJobs(final long now) {
        while (!toComplete.isEmpty() && toComplete.peek().dueMs() <= now) {
            final Completion c = toComplete.poll();
            final String id = PipelineBench.jobId(c.seq());
            if (c.seq() >= completedAt.length) {
                completedAt = Arrays.copyOf(completedAt, Math.max(completedAt.length * 2, c.seq() + 1));
            }
            completedAt[c.seq()] = now;
            events.send(new ProducerRecord<>(topics.jobEvents(), null, now, id,
                    BenchFabric.completed(id, c.placementId(), now)));
        }
    }

    private boolean allDecidedBefore(final int seq) {
        while (firstUndecided < sent && decided.get(firstUndecided)) {
            firstUndecided++;
        }
        return firstUndecided >= seq;
    }

    private void report(final long now) {
        if (now < nextReport) {
            return;
        }
        nextReport += 5_000;
        jit.sample(now);
        progress.println("bench: t=" + (now - start) / 1000 + "s offered=" + offeredRate + "/s sent=" + sent
                + " decided=" + decidedCount + " shed=" + shedCount + " backlog=" + (sent - decidedCount) + " p50_5s=" + recent.percentile(50)
                + "ms p99_5s=" + recent.percentile(99) + "ms max_5s=" + recent.percentile(100) + "ms release_p50_5s="
                + recentReleases.percentile(50) + "ms release_p99_5s=" + recentReleases.percentile(99)
                + "ms jit_ms_per_s=" + jit.msPerS() + " " + commits.line() + " " + lag.line() + " " + poolLine());
        recent = new LatencyRecorder();
        recentReleases = new LatencyRecorder();
    }

    /** Waiting jobs as the gauge figures say (a scan, no engine snapshot); -1 before the first figures. */
    private long queued() {
        return app.engines().pool(PipelineBench.POOL).flatMap(h -> h.views().latestFigures())
                .map(v -> (long) v.queueDepth().total()).orElse(-1L);
    }

    /**
     * Queue and GPUs of the bench pool as its gauge figures show them: where a collapse starts. It asks for no
     * view: a view is an engine snapshot on the placer's thread (hundreds of ms for 32k GPUs on a loaded
     * machine), and one every progress line would be in every latency window; the figures are a scan of a few
     * milliseconds, the same the scheduler's own gauges ask for. The line shows the last ones, with their age.
     */
    private String poolLine() {
        return app.engines().pool(PipelineBench.POOL).flatMap(h -> h.views().latestFigures()).map(v -> {
            long allocated = 0;
            long unhealthy = 0;
            long total = 0;
            for (final ModelCapacity m : v.capacity().byModel().values()) {
                allocated += m.allocated();
                unhealthy += m.unhealthy();
                total += m.total();
            }
            return "queued=" + v.queueDepth().total() + " gpus_allocated=" + allocated + "/" + total
                    + " unhealthy=" + unhealthy + " (figures " + Math.max(0, System.currentTimeMillis() - v.takenAtMs()) / 1000
                    + " s old)";
        }).orElse("pool not yet known");
    }

    private void telemetry(final Codecs codecs) {
        // Collectors run on the nodes, not here: each node's readings are encoded once and re-sent with a
        // fresh record timestamp (the sequencer's stream time), so the bench machine's CPU goes to the pipeline.
        final Serializer<GpuSamples> gser = codecs.serializer();
        final Serializer<LinkSamples> lser = codecs.serializer();
        final List<byte[]> g = new ArrayList<>();
        final List<byte[]> l = new ArrayList<>();
        final List<byte[]> keys = new ArrayList<>();
        for (int n = 0; n < o.nodes(); n++) {
            final String node = PipelineBench.nodeId(n);
            g.add(gser.serialize(topics.telemetryGpu(), BenchFabric.gpuSamples(node, o.gpusPerNode(), n)));
            l.add(lser.serialize(topics.telemetryLink(), BenchFabric.linkSamples(node)));
            keys.add(node.getBytes(StandardCharsets.UTF_8));
        }
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(producerConfig(), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            final long begin = System.currentTimeMillis();
            long slice = 0;
            while (!stop.get()) {
                // one tenth of the nodes every 100 ms: every node once per second
                final long now = System.currentTimeMillis();
                for (int n = (int) (slice % 10); n < o.nodes(); n += 10) {
                    p.send(new ProducerRecord<>(topics.telemetryGpu(), null, now, keys.get(n), g.get(n)));
                    p.send(new ProducerRecord<>(topics.telemetryLink(), null, now, keys.get(n), l.get(n)));
                    telemetrySent.addAndGet(2);
                }
                slice++;
                sleep(Math.max(0, begin + slice * 100 - System.currentTimeMillis()));
            }
        }
    }

    private Properties producerConfig() {
        return PipelineBench.producerConfig(o.bootstrapServers(), o.clientOverrides());
    }

    private <T extends AutoCloseable> T keep(final T resource) {
        resources.add(resource);
        return resource;
    }

    @Override
    public void close() {
        stop.set(true);
        for (final Thread t : new Thread[] {telemetry, reader}) {
            if (t != null) {
                try {
                    t.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                progress.println("bench: closing " + resources.get(i).getClass().getSimpleName() + ": " + e);
            }
        }
    }

    private static void sleep(final long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
