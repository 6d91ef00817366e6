package io.gpupool.bench.restart;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.bench.BenchTopics;
import io.gpupool.collector.app.FleetCollector;
import io.gpupool.collector.publish.PublisherTopics;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.audit.AuditRange;
import io.gpupool.scheduler.audit.AuditResult;
import io.gpupool.scheduler.audit.Auditor;
import io.gpupool.scheduler.audit.KafkaHistory;
import io.gpupool.scheduler.audit.RecordedDecisions;
import io.gpupool.scheduler.audit.reality.RealityAudit;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.sink.SinkConfig;
import io.gpupool.sink.SinkRunner;
import io.gpupool.sink.apply.SimulatedApplier;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kill -9 to first new decision: the scheduler runs as a child JVM ({@link SchedulerProcess}) on its own topics,
 * next to a simulated fleet and the simulated sink in this JVM, under a steady job load. It is SIGKILLed
 * {@code kills} times, each time restarted at once on the same state directory (the same instance), and the time
 * from the kill to the first decision caused by an input written after it is measured, with the part of it the
 * new process took to reach RUNNING. At the end: every submitted job has its final decision (none lost), no
 * decision id was read twice (read_committed: none duplicated), and the audit of the recorded topics is clean.
 */
public final class RestartBench {
    static final String POOL = "restart";
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration DECISION_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration FINISH_TIMEOUT = Duration.ofMinutes(3);
    /** Job runtimes, real time: short, so that RELEASED decisions follow within the run. */
    private static final long[] RUNTIMES_MS = {2_000, 3_000, 5_000};

    private RestartBench() {
    }

    /** Runs the bench; the figures in order, {@code passed=true} when nothing was lost or duplicated and the audit is clean. */
    public static Map<String, String> run(final RestartBenchOptions o, final PrintStream progress) throws Exception {
        final String prefix = "restart-" + System.currentTimeMillis();
        final TopicCatalog catalog = BenchTopics.catalog(prefix);
        final TopicNames topics = TopicNames.of(catalog);
        final Path dir = Files.createDirectories(o.stateDir().resolve(prefix));
        final Path log = dir.resolve("scheduler.log");
        final List<String> args = schedulerArgs(o, prefix, catalog, dir.resolve("scheduler-state"));
        final Codecs codecs = new Codecs(AvroSerdeConfig.registry(AvroSerdeConfig.forClient(o.clientOverrides(),
                o.registryUrl())), true);
        final Map<String, String> figures = new LinkedHashMap<>();
        final List<Long> killToDecision = new ArrayList<>();
        final List<Long> killToReady = new ArrayList<>();
        final ConcurrentLinkedQueue<String> submitted = new ConcurrentLinkedQueue<>();
        progress.printf("restart: scheduler log %s%n", log);
        SchedulerProcess scheduler = SchedulerProcess.start(args, log);
        try {
            scheduler.awaitReady(READY_TIMEOUT);
            try (FleetCollector fleet = FleetCollector.start(new FleetSpec(POOL, o.nodes(), 8, 2, 4, 2, 0, 1),
                         Duration.ofSeconds(1), o.bootstrapServers(), o.registryUrl(), PublisherTopics.from(catalog),
                         Math.max(1_000, o.nodes() * 10), -1);
                 SinkRunner sink = SinkRunner.create(SinkConfig.defaults(o.bootstrapServers(), o.registryUrl(),
                         dir.resolve("sink")).withTopics(catalog).withGroupId(prefix + "-sink"),
                         new SimulatedApplier(1.0, Duration.ofSeconds(3))).start();
                 KafkaProducer<String, JobCommand> jobs = new KafkaProducer<>(producerConfig(o), new StringSerializer(),
                         codecs.serializer());
                 DecisionWatch decisions = new DecisionWatch(clients(o), topics.decisions(),
                         codecs.deserializer(PlacementDecision.class))) {
                final ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
                final AtomicInteger seq = new AtomicInteger();
                final long periodMs = Math.max(1, 1000 / o.rate());
                load.scheduleAtFixedRate(() -> {
                    final String id = "job-" + seq.getAndIncrement();
                    jobs.send(new ProducerRecord<>(topics.jobs(), id, submit(id, seq.get())));
                    submitted.add(id);
                }, 0, periodMs, TimeUnit.MILLISECONDS);
                try {
                    progress.printf("restart: %d nodes x 8 GPUs, %d jobs/s; warming up for %d s%n", o.nodes(),
                            1000 / periodMs, o.warmup().toSeconds());
                    Thread.sleep(o.warmup().toMillis());
                    for (int k = 1; k <= o.kills(); k++) {
                        final long killedAtMs = System.currentTimeMillis();
                        final long killedAt = System.nanoTime();
                        final var firstNew = decisions.firstDecisionAfter(killedAtMs);
                        scheduler.kill();
                        scheduler = SchedulerProcess.start(args, log);
                        scheduler.awaitReady(READY_TIMEOUT);
                        final long ready = System.nanoTime();
                        final long decided = firstNew.get(DECISION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                        killToReady.add((ready - killedAt) / 1_000_000);
                        killToDecision.add((decided - killedAt) / 1_000_000);
                        progress.printf("restart: kill %d/%d: running again after %d ms, first new decision after %d ms%n",
                                k, o.kills(), killToReady.get(k - 1), killToDecision.get(k - 1));
                        figures.put("kill_" + k + "_first_decision_ms", Long.toString(killToDecision.get(k - 1)));
                        Thread.sleep(o.betweenKills().toMillis());
                    }
                } finally {
                    load.shutdownNow();
                    load.awaitTermination(10, TimeUnit.SECONDS);
                }
                jobs.flush();
                progress.printf("restart: %d jobs submitted; waiting for their final decisions%n", submitted.size());
                final long deadline = System.nanoTime() + FINISH_TIMEOUT.toNanos();
                while (decisions.unfinished(submitted) > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                figures.put("jobs_submitted", Integer.toString(submitted.size()));
                figures.put("decisions", Long.toString(decisions.decisions()));
                figures.put("jobs_without_final_decision", Long.toString(decisions.unfinished(submitted)));
                figures.put("decisions_duplicated", Long.toString(decisions.duplicated()));
            }
        } finally {
            scheduler.close();
        }
        summary(figures, "first_decision", killToDecision);
        summary(figures, "running", killToReady);
        final AuditResult audit = audit(o, topics, prefix + "-app", progress);
        figures.put("audit_passed", Boolean.toString(audit.passed()));
        figures.put("passed", Boolean.toString(audit.passed() && figures.get("jobs_without_final_decision").equals("0")
                && figures.get("decisions_duplicated").equals("0")));
        BenchTopics.delete(o.bootstrapServers(), o.clientOverrides(), prefix, progress);
        return figures;
    }

    private static List<String> schedulerArgs(final RestartBenchOptions o, final String prefix, final TopicCatalog catalog,
                                              final Path stateDir) {
        final List<String> a = new ArrayList<>(List.of("--bootstrap", o.bootstrapServers(), "--registry", o.registryUrl(),
                "--app-id", prefix + "-app", "--state-dir", stateDir.toString()));
        catalog.all().forEach(t -> a.addAll(List.of("--" + TopicCatalog.PREFIX + t.topic().id() + ".name", t.name())));
        o.clientOverrides().forEach((k, v) -> a.addAll(List.of("--kafka." + k, v.toString())));
        return a;
    }

    /** A steady mix: 1, 2, 4 or 8 GPUs on one node, running 2-5 s. */
    private static JobCommand submit(final String jobId, final int n) {
        final JobRequest r = JobRequest.newBuilder().setName("restart-bench").setTenant("tenant-" + (n & 3)).setPool(POOL)
                .setNodes(1).setGpusPerNode(1 << (n % 4)).setRuntimeEstimateMillis(RUNTIMES_MS[n % RUNTIMES_MS.length])
                .build();
        return JobCommand.newBuilder().setJobId(jobId).setCommandId("c-" + jobId).setRequestedAt(Instant.now())
                .setCommand(JobSubmit.newBuilder().setRequest(r).build()).build();
    }

    /** The audit of the bench's topics, as {@code gpupool audit} runs it: decisions, node commands, what the sink ran. */
    static AuditResult audit(final RestartBenchOptions o, final TopicNames topics, final String applicationId,
                             final PrintStream progress) {
        try (KafkaHistory h = new KafkaHistory(clients(o), o.registryUrl(), topics)) {
            final Map<Integer, Long> decidedUpTo = h.placerPositions(applicationId);
            final List<PlacementDecision> recorded = h.decisions(null);
            final RealityAudit reality = h.whyNoSinkHistory().map(RealityAudit::notChecked)
                    .orElseGet(() -> new RealityAudit(h.sinkHistory(), null, RealityAudit.DEFAULT_GRACE));
            final AuditResult r = new Auditor(SchedulerApp.engineConfigs(Map.of()), Map.of(), AuditRange.ALL)
                    .run(h.journal(null, Map.of(), decidedUpTo), RecordedDecisions.of(recorded), h.nodeCommands(null),
                            reality);
            final StringWriter text = new StringWriter();
            r.print(new PrintWriter(text, true));
            progress.print(text.toString().lines().map(l -> "restart: audit: " + l + "\n").reduce("", String::concat));
            return r;
        }
    }

    private static void summary(final Map<String, String> figures, final String name, final List<Long> ms) {
        final long[] sorted = ms.stream().mapToLong(Long::longValue).sorted().toArray();
        figures.put(name + "_p50_ms", Long.toString(percentile(sorted, 50)));
        figures.put(name + "_p90_ms", Long.toString(percentile(sorted, 90)));
        figures.put(name + "_max_ms", Long.toString(sorted.length == 0 ? 0 : sorted[sorted.length - 1]));
    }

    /** Nearest-rank percentile; 0 of none. */
    static long percentile(final long[] sorted, final int p) {
        if (sorted.length == 0) {
            return 0;
        }
        final int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    private static Properties clients(final RestartBenchOptions o) {
        final Properties p = new Properties();
        p.putAll(o.clientOverrides());
        p.put("bootstrap.servers", o.bootstrapServers());
        return p;
    }

    private static Properties producerConfig(final RestartBenchOptions o) {
        final Properties p = clients(o);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return p;
    }
}
