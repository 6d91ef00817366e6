package io.gpupool.bench.cost;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.bench.BenchTopics;
import io.gpupool.bench.pipeline.BenchFabric;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.scheduler.stream.PoolEngines;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Where a decided request's cost goes: {@code --jobs} 1-GPU requests through both stages of a scheduler of its own
 * on a live broker (closed loop, the bench completing each placed job unless told not to), and what the measured
 * requests cost, divided by the requests decided: records, transaction markers and bytes written to every topic
 * of the run (journal, decisions, node commands, snapshots, the repartition topic, every changelog; the inputs the
 * bench wrote too), state-store calls per store ({@link StoreOps}), the scheduler threads' CPU time and, with a JFR
 * recording, its shares by component ({@link CpuProfile}). A warm-up of {@code --warmup-jobs} requests runs first
 * and is not counted.
 */
public final class CostBench {
    private static final String POOL = "bench";
    private static final String HOLDERS = "hold";
    private static final String WAITING = "wait";

    private CostBench() {
    }

    public static Map<String, String> run(final CostBenchOptions o, final PrintStream progress) throws Exception {
        final String prefix = BenchTopics.runPrefix("cost");
        final String appId = prefix + "-scheduler";
        final TopicCatalog catalog = BenchTopics.catalog(prefix);
        final TopicNames topics = TopicNames.of(catalog);
        final Codecs codecs = new Codecs(AvroSerdeConfig.registry(AvroSerdeConfig.forClient(o.clientOverrides(),
                o.registryUrl())), true);
        final Path stateDir = Files.createDirectories(o.stateDir().resolve(appId));
        final Properties schedulerClients = new Properties();
        schedulerClients.putAll(o.clientOverrides());
        if (o.storeCalls()) {
            schedulerClients.putAll(StoreOps.settings());
        }
        // Streams deletes consumed repartition records every 30 s; the records must stay to be counted
        schedulerClients.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, Long.toString(Long.MAX_VALUE));
        final Map<String, String> engine = new TreeMap<>(Map.of("stale-telemetry-timeout-ms", "0", // no telemetry sent
                "max-waiting-jobs", "0")); // --backlog may hold more waiting jobs than a pool sheds at
        if (o.retentionMs() >= 0) {
            engine.put("finished-job-retention-ms", Long.toString(o.retentionMs()));
        }
        final SchedulerOptions so = new SchedulerOptions(appId, o.bootstrapServers(), o.registryUrl(), schedulerClients,
                false, stateDir, "", 0, engine,
                SchedulerOptions.DEFAULT_SNAPSHOT_EVERY, SchedulerOptions.DEFAULT_TICK_INTERVAL_MS, catalog)
                // --backlog produces its waiting jobs at once, far past the journal backlog at which the scheduler
                // sheds submits; this bench measures what a request costs, not shedding
                .withShedJournalBacklog(0);
        final Map<String, String> figures = new LinkedHashMap<>();
        try (SchedulerApp app = SchedulerApp.start(so);
             Admin admin = Admin.create(adminConfig(o));
             KafkaProducer<String, NodeInventory> inv = new KafkaProducer<>(producerConfig(o), new StringSerializer(),
                     codecs.serializer());
             KafkaProducer<String, JobCommand> jobs = new KafkaProducer<>(producerConfig(o), new StringSerializer(),
                     codecs.serializer());
             KafkaProducer<String, JobEvent> events = new KafkaProducer<>(producerConfig(o), new StringSerializer(),
                     codecs.serializer());
             KafkaConsumer<String, PlacementDecision> decisions = new KafkaConsumer<>(consumerConfig(o, prefix + "-sink"),
                     new StringDeserializer(), codecs.deserializer(PlacementDecision.class))) {
            if (!app.awaitRunning(Duration.ofMinutes(2))) {
                throw new IllegalStateException("the scheduler did not start: " + app.streams().state());
            }
            for (int n = 0; n < o.nodes(); n++) {
                final NodeInventory node = BenchFabric.node(POOL, n, o.gpusPerNode(), o.leaves());
                inv.send(new ProducerRecord<>(topics.inventory(), node.getNodeId().toString(), node));
            }
            inv.flush();
            awaitGpus(app, (long) o.nodes() * o.gpusPerNode(), progress);
            decisions.subscribe(List.of(topics.decisions()));
            final RequestLoop loop = new RequestLoop(POOL, topics.jobs(), topics.jobEvents(), jobs, events, decisions,
                    o.complete(), o.inFlight(), progress);
            progress.printf("cost: %d warm-up and %d measured requests, at most %d in flight, %s%n", o.warmupJobs(),
                    o.jobs(), o.inFlight(), o.complete() ? "each placed job completed at once" : "placement only");
            loop.run(0, o.warmupJobs(), "warm-up");
            if (o.backlog() > 0) {
                progress.printf("cost: the pool held full by %d jobs, then %d waiting jobs%n",
                        (long) o.nodes() * o.gpusPerNode(), o.backlog());
                loop.fill(HOLDERS, o.nodes() * o.gpusPerNode(), DecisionOutcome.PLACED);
                loop.fill(WAITING, o.backlog(), DecisionOutcome.QUEUED);
            }

            final TopicMark topicsBefore = TopicMark.of(admin, prefix);
            final Map<String, Map<String, Long>> storesBefore = StoreOps.count(app.streams());
            final long decidedBefore = loop.decided();
            final long decisionRecordsBefore = loop.decisionRecords();
            final Map<Long, Long> cpuBefore = SchedulerThreads.cpuNanos(appId);
            final CpuProfile profile = o.profile() ? CpuProfile.start(o.stateDir().resolve(prefix + ".jfr")) : null;
            final long start = System.nanoTime();
            if (o.backlog() > 0) {
                loop.drain(HOLDERS, WAITING, o.jobs(), "measured");
            } else {
                loop.run(o.warmupJobs(), o.jobs(), "measured");
            }
            final long wallNanos = System.nanoTime() - start;
            final long cpuNanos = SchedulerThreads.between(cpuBefore, SchedulerThreads.cpuNanos(appId));
            final Map<String, Map<String, Long>> storeCalls = StoreOps.between(storesBefore,
                    StoreOps.count(app.streams()));
            final TopicMark topicsAfter = TopicMark.of(admin, prefix);
            final Map<String, String> cpu = profile == null ? Map.of() : profile.stop(appId);
            if (profile != null) {
                profile.close();
            }
            final long decided = loop.decided() - decidedBefore;
            progress.println("cost: reading back what the measured requests wrote");
            final Map<String, TopicCost> written = TopicCost.between(topicsBefore, topicsAfter, o.bootstrapServers(),
                    o.clientOverrides());

            figures.put("mode", o.backlog() > 0 ? "backlog" : o.complete() ? "lifecycle" : "placement");
            figures.put("queue_depth_at_start", Integer.toString(o.backlog()));
            figures.put("finished_job_retention_ms", o.retentionMs() < 0 ? "default" : Long.toString(o.retentionMs()));
            figures.put("requests_decided", Long.toString(decided));
            figures.put("requests_per_s", String.format(Locale.ROOT, "%.0f", decided * 1e9 / wallNanos));
            figures.put("decisions_per_request", perRequest(loop.decisionRecords() - decisionRecordsBefore, decided));
            figures.putAll(CostFigures.topics(written, prefix, appId, Set.of(topics.inventory(), topics.telemetryGpu(),
                    topics.telemetryLink(), topics.jobs(), topics.jobEvents()), decided));
            if (o.storeCalls()) {
                figures.putAll(CostFigures.stores(storeCalls, decided));
            }
            figures.put("scheduler_cpu_us_per_request", String.format(Locale.ROOT, "%.1f", cpuNanos / 1e3 / decided));
            figures.putAll(cpu);
            if (o.restart()) {
                app.close(); // a clean stop keeps the stores: what the restart re-does is the placer's restore
                figures.putAll(restart(so, progress));
            }
        } finally {
            BenchTopics.delete(o.bootstrapServers(), o.clientOverrides(), prefix, progress);
        }
        return figures;
    }

    /**
     * Starts the scheduler again on its state directory and waits until its placer has restored the pool: the
     * pool's last snapshot, and the journal entries after it re-applied.
     */
    private static Map<String, String> restart(final SchedulerOptions so, final PrintStream progress)
            throws InterruptedException {
        progress.println("cost: restarting the scheduler on its state directory");
        final long start = System.nanoTime();
        long nextProgress = start + TimeUnit.SECONDS.toNanos(5);
        try (SchedulerApp again = SchedulerApp.start(so)) {
            Optional<PoolEngines.Handle> pool = again.engines().pool(POOL);
            while (pool.isEmpty()) {
                final long now = System.nanoTime();
                if (now - start > TimeUnit.MINUTES.toNanos(10)) {
                    throw new IllegalStateException("the restarted scheduler had not restored pool " + POOL
                            + " after 10 minutes (Streams " + again.streams().state() + ")");
                }
                if (now >= nextProgress) {
                    progress.printf("cost: restart t=%ds, pool %s not restored yet (Streams %s)%n",
                            TimeUnit.NANOSECONDS.toSeconds(now - start), POOL, again.streams().state());
                    nextProgress += TimeUnit.SECONDS.toNanos(5);
                }
                Thread.sleep(10);
                pool = again.engines().pool(POOL);
            }
            final Map<String, String> figures = new LinkedHashMap<>();
            figures.put("restart_restored_entries", Integer.toString(pool.get().restoredEntries()));
            figures.put("restart_pool_ms", Long.toString(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
            return figures;
        }
    }

    /** Three decimals: a snapshot every 50,000 journal entries is a few thousandths of a record per request. */
    static String perRequest(final long n, final long requests) {
        return String.format(Locale.ROOT, "%.3f", (double) n / requests);
    }

    private static void awaitGpus(final SchedulerApp app, final long gpus, final PrintStream progress)
            throws InterruptedException {
        final long deadline = System.currentTimeMillis() + 120_000;
        while (System.currentTimeMillis() < deadline) {
            final long known = app.engines().pool(POOL).flatMap(h -> h.views().current()).map(v -> v.capacity()
                    .byModel().values().stream().mapToLong(m -> m.total()).sum()).orElse(0L);
            if (known >= gpus) {
                return;
            }
            Thread.sleep(200);
        }
        progress.println("cost: warning: not every node reached the engine within 120 s");
    }

    private static Properties adminConfig(final CostBenchOptions o) {
        final Properties p = new Properties();
        p.putAll(o.clientOverrides());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrapServers());
        return p;
    }

    private static Properties producerConfig(final CostBenchOptions o) {
        final Properties p = adminConfig(o);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        return p;
    }

    private static Properties consumerConfig(final CostBenchOptions o, final String group) {
        final Properties p = adminConfig(o);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        return p;
    }
}
