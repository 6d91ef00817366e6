package io.gpupool.bench.pipeline;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.bench.BenchTopics;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.core.ModelCapacity;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.scheduler.stream.PoolEngines;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.scheduler.stream.StreamsSettings;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Job requests through both stages of the scheduler, exactly-once, on a live broker, while telemetry
 * for every node arrives once per second; the bench is also the sink (it completes placed jobs after
 * a runtime, so the pool does not fill up). Latency is from the job record's timestamp to the
 * decision reaching a read_committed consumer. Then a pass-through Streams app with the same
 * configuration drains a backlog of the same records: the ceiling. Wall-clock time is the point here.
 */
public final class PipelineBench {
    static final String POOL = "bench";

    private PipelineBench() {
    }

    public static Map<String, String> run(final PipelineBenchOptions o, final PrintStream progress) throws Exception {
        final String prefix = "bench-" + System.currentTimeMillis();
        final TopicCatalog catalog = catalog(prefix);
        final TopicNames topics = TopicNames.of(catalog);
        final Map<String, Object> serde = AvroSerdeConfig.forClient(o.clientOverrides(), o.registryUrl());
        final Codecs codecs = new Codecs(AvroSerdeConfig.registry(serde), true);
        final Map<String, String> figures = new LinkedHashMap<>();
        try {
            scheduler(o, prefix, catalog, topics, codecs, figures, progress);
            progress.println("bench: scheduler figures " + figures);
            SchedulerDrain.run(o, prefix + "-drain", catalog(prefix + "-drain"), codecs, producerConfig(o),
                    consumerConfig(o, prefix + "-drain-reader"), figures, progress);
            passThrough(o, prefix, topics, codecs, figures, progress);
        } finally {
            deleteTopics(o, prefix, progress);
        }
        final double ours = Double.parseDouble(figures.get("requests_per_s"));
        final double ceiling = Double.parseDouble(figures.get("passthrough_requests_per_s"));
        figures.put("ratio", String.format(Locale.ROOT, "%.3f", ceiling == 0 ? 0 : ours / ceiling));
        final double drain = Double.parseDouble(figures.get("drain_requests_per_s"));
        figures.put("drain_ratio", String.format(Locale.ROOT, "%.3f", ceiling == 0 ? 0 : drain / ceiling));
        return figures;
    }

    /** Every gpupool topic under {@code prefix}: the bench's own, deleted at the end. */
    private static TopicCatalog catalog(final String prefix) {
        return BenchTopics.catalog(prefix);
    }

    private static Properties producerConfig(final PipelineBenchOptions o) {
        return producerConfig(o.bootstrapServers(), o.clientOverrides());
    }

    static Properties producerConfig(final String bootstrapServers, final Properties clientOverrides) {
        final Properties p = new Properties();
        p.putAll(clientOverrides);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        return p;
    }

    private static Properties consumerConfig(final PipelineBenchOptions o, final String group) {
        return consumerConfig(o.bootstrapServers(), o.clientOverrides(), group);
    }

    static Properties consumerConfig(final String bootstrapServers, final Properties clientOverrides, final String group) {
        final Properties p = new Properties();
        p.putAll(clientOverrides);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        return p;
    }

    private static void scheduler(final PipelineBenchOptions o, final String prefix, final TopicCatalog catalog,
                                  final TopicNames topics, final Codecs codecs, final Map<String, String> figures,
                                  final PrintStream progress) throws Exception {
        final SchedulerOptions so = new SchedulerOptions(prefix + "-scheduler", o.bootstrapServers(), o.registryUrl(),
                o.clientOverrides(), false, Files.createDirectories(o.stateDir().resolve(prefix + "-scheduler")), "", 0,
                Map.of(), SchedulerOptions.DEFAULT_SNAPSHOT_EVERY, SchedulerOptions.DEFAULT_TICK_INTERVAL_MS, catalog);
        final int expectedJobs = o.rate() * (o.warmupS() + o.measureS()) + o.rate();
        final long[] sentAt = new long[expectedJobs];
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong telemetrySent = new AtomicLong();
        try (SchedulerApp app = SchedulerApp.start(so);
             KafkaProducer<String, NodeInventory> inv = new KafkaProducer<>(producerConfig(o), new StringSerializer(), codecs.serializer());
             KafkaProducer<String, JobCommand> jobs = new KafkaProducer<>(producerConfig(o), new StringSerializer(), codecs.serializer());
             KafkaProducer<String, JobEvent> events = new KafkaProducer<>(producerConfig(o), new StringSerializer(), codecs.serializer());
             KafkaConsumer<String, PlacementDecision> decisions = new KafkaConsumer<>(consumerConfig(o, prefix + "-sink"),
                     new StringDeserializer(), codecs.deserializer(PlacementDecision.class))) {
            if (!app.awaitRunning(Duration.ofMinutes(2))) {
                throw new IllegalStateException("the scheduler did not start: " + app.streams().state());
            }
            progress.printf("bench: scheduler running; publishing inventory of %d nodes x %d GPUs%n", o.nodes(), o.gpusPerNode());
            for (int n = 0; n < o.nodes(); n++) {
                inv.send(new ProducerRecord<>(topics.inventory(), nodeId(n), BenchFabric.node(POOL, n, o.gpusPerNode(), o.leaves())));
            }
            inv.flush();
            awaitGpus(app.engines(), (long) o.nodes() * o.gpusPerNode(), progress);
            decisions.subscribe(List.of(topics.decisions()));

            final Thread telemetry = new Thread(() -> telemetry(o, topics, codecs, stop, telemetrySent), "bench-telemetry");
            telemetry.setDaemon(true);
            telemetry.start();

            final LatencyRecorder latency = new LatencyRecorder();
            final long start = System.currentTimeMillis();
            final long measureFrom = start + o.warmupS() * 1000L;
            final long measureTo = measureFrom + o.measureS() * 1000L;
            final Thread producer = new Thread(() -> produceJobs(o, topics, jobs, sentAt, start, measureTo, stop), "bench-jobs");
            producer.setDaemon(true);
            producer.start();
            progress.printf("bench: offering %d job requests/s for %d s warm-up (ramping up over the first %d s) + %d s"
                    + " measured, telemetry for %d nodes at 1 Hz%n", o.rate(), o.warmupS(), rampMs(o) / 1000, o.measureS(),
                    o.nodes());

            final boolean[] decided = new boolean[expectedJobs];
            final ArrayDeque<long[]> toComplete = new ArrayDeque<>(); // {due ms, job seq}
            final String[] placementOf = new String[expectedJobs]; // the PLACED decision: the completion names it
            long firstInWindow = 0;
            long nextReport = start + 5_000;
            long decidedInWindow = 0;
            final long drainUntil = measureTo + 15_000;
            long target = -1;
            while (System.currentTimeMillis() < drainUntil) {
                for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(20))) {
                    final int seq = seqOf(r.key());
                    if (seq < 0 || seq >= expectedJobs) {
                        continue;
                    }
                    final long now = System.currentTimeMillis();
                    if (!decided[seq]) {
                        decided[seq] = true;
                        if (sentAt[seq] >= measureFrom && sentAt[seq] < measureTo) {
                            latency.record(now - sentAt[seq]);
                        }
                        if (now >= measureFrom && now < measureTo) {
                            decidedInWindow++;
                        }
                    }
                    if (r.value().getOutcome() == DecisionOutcome.PLACED) {
                        placementOf[seq] = r.value().getDecisionId();
                        toComplete.add(new long[] {now + o.jobRuntimeMs(), seq});
                    }
                }
                final long now = System.currentTimeMillis();
                while (!toComplete.isEmpty() && toComplete.peek()[0] <= now) {
                    final int seq = (int) toComplete.poll()[1];
                    final String id = jobId(seq);
                    events.send(new ProducerRecord<>(topics.jobEvents(), null, now, id, JobEvent.newBuilder().setJobId(id)
                            .setEventId("done-" + id).setType(JobEventType.COMPLETED).setPlacementId(placementOf[seq])
                            .setOccurredAt(Instant.ofEpochMilli(now)).build()));
                }
                if (now >= measureTo + 200) {
                    if (target < 0) {
                        target = countSent(sentAt, measureFrom, measureTo);
                    }
                    if (latency.count() >= target) {
                        break;
                    }
                }
                if (now >= nextReport) {
                    nextReport += 5_000;
                    progress.println("bench: t=" + (now - start) / 1000 + "s decided=" + countDecided(decided) + " "
                            + poolLine(app.engines()));
                }
                if (firstInWindow == 0 && now >= measureFrom) {
                    firstInWindow = now;
                    progress.println("bench: warm-up done, measuring");
                }
            }
            stop.set(true);
            producer.join(5_000);
            telemetry.join(5_000);
            final long sentInWindow = countSent(sentAt, measureFrom, measureTo);
            figures.put("requests_per_s", String.format(Locale.ROOT, "%.0f", decidedInWindow / (double) o.measureS()));
            figures.put("p50_latency_ms", Long.toString(latency.percentile(50)));
            figures.put("p99_latency_ms", Long.toString(latency.percentile(99)));
            figures.put("offered_requests_per_s", Integer.toString(o.rate()));
            figures.put("requests_measured", Long.toString(sentInWindow));
            figures.put("requests_undecided", Long.toString(sentInWindow - latency.count()));
            figures.put("telemetry_records_per_s", String.format(Locale.ROOT, "%.0f",
                    telemetrySent.get() / ((System.currentTimeMillis() - start) / 1000.0)));
        }
    }

    private static long countDecided(final boolean[] decided) {
        long n = 0;
        for (final boolean d : decided) {
            n += d ? 1 : 0;
        }
        return n;
    }

    /** Queue and GPUs of the bench pool, as its published view shows them (not stalling the placer): where a collapse starts. */
    private static String poolLine(final PoolEngines engines) {
        return engines.pool(POOL).flatMap(h -> h.views().current()).map(v -> {
            long allocated = 0;
            long unhealthy = 0;
            long total = 0;
            for (final ModelCapacity m : v.capacity().byModel().values()) {
                allocated += m.allocated();
                unhealthy += m.unhealthy();
                total += m.total();
            }
            return "queued=" + v.queueDepth().total() + " gpus_allocated=" + allocated + "/" + total
                    + " unhealthy=" + unhealthy;
        }).orElse("pool not yet known");
    }

    private static long countSent(final long[] sentAt, final long from, final long to) {
        long n = 0;
        for (final long t : sentAt) {
            if (t >= from && t < to) {
                n++;
            }
        }
        return n;
    }

    private static void produceJobs(final PipelineBenchOptions o, final TopicNames topics,
                                    final KafkaProducer<String, JobCommand> jobs, final long[] sentAt, final long start,
                                    final long until, final AtomicBoolean stop) {
        int seq = 0;
        final int[] sizes = {1, 1, 1, 1, 1, 1, 1, 2, 2, 8};
        while (!stop.get()) {
            final long now = System.currentTimeMillis();
            if (now >= until) {
                return;
            }
            final long due = due(now - start, o.rate(), rampMs(o));
            while (seq < due && seq < sentAt.length) {
                final String id = jobId(seq);
                final long ts = System.currentTimeMillis();
                sentAt[seq] = ts;
                jobs.send(new ProducerRecord<>(topics.jobs(), null, ts, id, BenchFabric.submit(POOL, id, sizes[seq % sizes.length])));
                seq++;
            }
            sleep(5);
        }
    }

    /**
     * The warm-up's first half (at most 20 s) raises the offered rate from 0 to the full rate, as load
     * on a service grows: a cold JVM offered the full rate at once builds a start-up backlog, the
     * pool fills with it, and the queue that forms can outlast the warm-up.
     */
    static long rampMs(final PipelineBenchOptions o) {
        return Math.min(20_000L, o.warmupS() * 500L);
    }

    /** Job requests due {@code elapsedMs} after the start: a linear ramp over {@code rampMs}, then {@code rate}/s. */
    static long due(final long elapsedMs, final int rate, final long rampMs) {
        if (elapsedMs < rampMs) {
            return (long) ((double) rate * elapsedMs * elapsedMs / (2_000.0 * rampMs));
        }
        return rate * rampMs / 2_000 + (elapsedMs - rampMs) * rate / 1_000;
    }

    private static void telemetry(final PipelineBenchOptions o, final TopicNames topics, final Codecs codecs,
                                  final AtomicBoolean stop, final AtomicLong sent) {
        // Collectors run on the nodes, not here: each node's readings are encoded once and re-sent with a
        // fresh record timestamp (the sequencer's stream time), so the bench machine's CPU goes to the pipeline.
        final Serializer<GpuSamples> gser = codecs.serializer();
        final Serializer<LinkSamples> lser = codecs.serializer();
        final List<byte[]> g = new ArrayList<>();
        final List<byte[]> l = new ArrayList<>();
        final List<byte[]> keys = new ArrayList<>();
        for (int n = 0; n < o.nodes(); n++) {
            g.add(gser.serialize(topics.telemetryGpu(), BenchFabric.gpuSamples(nodeId(n), o.gpusPerNode(), n)));
            l.add(lser.serialize(topics.telemetryLink(), BenchFabric.linkSamples(nodeId(n))));
            keys.add(nodeId(n).getBytes(StandardCharsets.UTF_8));
        }
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(producerConfig(o), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            final long start = System.currentTimeMillis();
            long slice = 0;
            while (!stop.get()) {
                // one tenth of the nodes every 100 ms: every node once per second
                final long now = System.currentTimeMillis();
                for (int n = (int) (slice % 10); n < o.nodes(); n += 10) {
                    p.send(new ProducerRecord<>(topics.telemetryGpu(), null, now, keys.get(n), g.get(n)));
                    p.send(new ProducerRecord<>(topics.telemetryLink(), null, now, keys.get(n), l.get(n)));
                    sent.addAndGet(2);
                }
                slice++;
                sleep(Math.max(0, start + slice * 100 - System.currentTimeMillis()));
            }
        }
    }

    private static void passThrough(final PipelineBenchOptions o, final String prefix, final TopicNames topics,
                                    final Codecs codecs, final Map<String, String> figures, final PrintStream progress)
            throws Exception {
        final String in = prefix + ".pt-in";
        final String out = prefix + ".pt-out";
        final Properties admin = new Properties();
        admin.putAll(o.clientOverrides());
        admin.put("bootstrap.servers", o.bootstrapServers());
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(in, 3, (short) -1), new NewTopic(out, 3, (short) -1))).all()
                    .get(60, TimeUnit.SECONDS);
        }
        progress.printf("bench: pass-through ceiling on a backlog of %d job records%n", o.passthroughRecords());
        final Serializer<JobCommand> ser = codecs.serializer();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(producerConfig(o), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < o.passthroughRecords(); i++) {
                final String id = jobId(i);
                p.send(new ProducerRecord<>(in, id.getBytes(StandardCharsets.UTF_8),
                        ser.serialize(in, BenchFabric.submit(POOL, id, 1))));
            }
        }
        final Properties cfg = StreamsSettings.merge(StreamsSettings.local(prefix + "-passthrough", o.bootstrapServers(),
                Files.createDirectories(o.stateDir().resolve(prefix + "-passthrough")).toString()), o.clientOverrides());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerConfig(o, prefix + "-pt-reader"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(out));
            final KafkaStreams pt = PassThrough.start(cfg, in, out);
            try {
                long count = 0;
                long first = 0;
                long last = 0;
                final long deadline = System.currentTimeMillis() + 300_000;
                while (count < o.passthroughRecords() && System.currentTimeMillis() < deadline) {
                    final int n = c.poll(Duration.ofMillis(50)).count();
                    if (n > 0) {
                        last = System.currentTimeMillis();
                        if (first == 0) {
                            first = last;
                        }
                        count += n;
                    }
                }
                // rate from the first output record on: start-up and rebalance are not the ceiling's business
                final double secs = Math.max(0.001, (last - first) / 1000.0);
                figures.put("passthrough_requests_per_s", String.format(Locale.ROOT, "%.0f", count / secs));
            } finally {
                pt.close(Duration.ofSeconds(30));
            }
        }
    }

    /** Jobs must not arrive before the whole inventory is in the engine, or they find a small pool and queue. */
    static void awaitGpus(final PoolEngines engines, final long gpus, final PrintStream progress)
            throws InterruptedException {
        final long deadline = System.currentTimeMillis() + 120_000;
        while (System.currentTimeMillis() < deadline) {
            final long known = engines.pool(POOL).flatMap(h -> h.views().current()).map(v -> v.capacity().byModel()
                    .values().stream().mapToLong(m -> m.total()).sum()).orElse(0L);
            if (known >= gpus) {
                return;
            }
            Thread.sleep(200);
        }
        progress.println("bench: warning: not every node reached the engine within 120 s");
    }

    private static void deleteTopics(final PipelineBenchOptions o, final String prefix, final PrintStream progress) {
        BenchTopics.delete(o.bootstrapServers(), o.clientOverrides(), prefix, progress);
    }

    static String nodeId(final int n) {
        return String.format(Locale.ROOT, "node-%05d", n);
    }

    static String jobId(final int seq) {
        return "j-" + seq;
    }

    static int seqOf(final String jobId) {
        try {
            return Integer.parseInt(jobId.substring(2));
        } catch (RuntimeException e) {
            return -1;
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
