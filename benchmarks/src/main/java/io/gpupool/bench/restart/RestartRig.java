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
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
 * What a scheduler crash is measured or judged in: the bench's own topics, schedulers as child processes
 * ({@link SchedulerProcess}, each with its own state directory and log), and, once {@link #startPipeline}
 * runs, a simulated fleet and the simulated sink in this JVM, a steady job load and a read_committed
 * {@link DecisionWatch}. {@link #close} stops all of it and deletes the topics.
 */
public final class RestartRig implements AutoCloseable {
    static final String POOL = "restart";
    /** Job runtimes, real time: short, so that RELEASED decisions follow within the run. */
    private static final long[] RUNTIMES_MS = {2_000, 3_000, 5_000};

    private final RestartBenchOptions options;
    private final PrintStream progress;
    private final String prefix;
    private final TopicCatalog catalog;
    private final TopicNames topics;
    private final Path dir;
    private final Codecs codecs;
    private final ConcurrentLinkedQueue<String> submitted = new ConcurrentLinkedQueue<>();
    private final List<AutoCloseable> pipeline = new ArrayList<>();
    private ScheduledExecutorService load;
    private DecisionWatch decisions;

    public RestartRig(final RestartBenchOptions options, final PrintStream progress) throws IOException {
        this.options = options;
        this.progress = progress;
        this.prefix = BenchTopics.runPrefix("restart");
        this.catalog = BenchTopics.catalog(prefix);
        this.topics = TopicNames.of(catalog);
        this.dir = Files.createDirectories(options.stateDir().resolve(prefix));
        this.codecs = new Codecs(AvroSerdeConfig.registry(AvroSerdeConfig.forClient(options.clientOverrides(),
                options.registryUrl())), true);
    }

    public TopicCatalog catalog() {
        return catalog;
    }

    public TopicNames topics() {
        return topics;
    }

    /** The schedulers' Kafka Streams application id. */
    public String applicationId() {
        return prefix + "-app";
    }

    /**
     * Starts scheduler {@code name} (its state directory and log named after it: a restart under the same name
     * is a restart of the same instance) with these extra {@code --name value} arguments; not yet ready.
     */
    public SchedulerProcess scheduler(final String name, final List<String> extra) throws IOException {
        final List<String> a = new ArrayList<>(List.of("--bootstrap", options.bootstrapServers(),
                "--registry", options.registryUrl(), "--app-id", applicationId(),
                "--state-dir", dir.resolve(name + "-state").toString()));
        catalog.all().forEach(t -> a.addAll(List.of("--" + TopicCatalog.PREFIX + t.topic().id() + ".name", t.name())));
        options.clientOverrides().forEach((k, v) -> a.addAll(List.of("--kafka." + k, v.toString())));
        a.addAll(extra);
        return SchedulerProcess.start(a, dir.resolve(name + ".log"));
    }

    /** The fleet, the sink, the decision watch and the job load; the topics must exist (a scheduler made them). */
    public void startPipeline() throws Exception {
        pipeline.add(FleetCollector.start(new FleetSpec(POOL, options.nodes(), 8, 2, 4, 2, 0, 1), Duration.ofSeconds(1),
                options.bootstrapServers(), options.registryUrl(), PublisherTopics.from(catalog),
                Math.max(1_000, options.nodes() * 10), -1));
        pipeline.add(SinkRunner.create(SinkConfig.defaults(options.bootstrapServers(), options.registryUrl(),
                dir.resolve("sink")).withTopics(catalog).withGroupId(prefix + "-sink"),
                new SimulatedApplier(1.0, Duration.ofSeconds(3))).start());
        decisions = new DecisionWatch(clients(), topics.decisions(), codecs.deserializer(PlacementDecision.class));
        pipeline.add(decisions);
        final Properties p = clients();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        final KafkaProducer<String, JobCommand> jobs = new KafkaProducer<>(p, new StringSerializer(), codecs.serializer());
        pipeline.add(jobs);
        load = Executors.newSingleThreadScheduledExecutor();
        final AtomicInteger seq = new AtomicInteger();
        load.scheduleAtFixedRate(() -> {
            final int n = seq.getAndIncrement();
            final String id = "job-" + n;
            jobs.send(new ProducerRecord<>(topics.jobs(), id, submit(id, n)));
            submitted.add(id);
        }, 0, periodMs(), TimeUnit.MILLISECONDS);
        progress.printf("restart: %d nodes x 8 GPUs, %d jobs/s; logs in %s%n", options.nodes(), 1000 / periodMs(), dir);
    }

    private long periodMs() {
        return Math.max(1, 1000 / options.rate());
    }

    public DecisionWatch decisions() {
        return decisions;
    }

    /**
     * Stops the load, then waits for every submitted job's final decision while decisions keep coming: the
     * backlog of the restarts drains at what the pool and the machine allow, so only {@code stall} without any
     * new decision ends the wait early.
     */
    public void finish(final Duration stall) throws InterruptedException {
        load.shutdownNow();
        load.awaitTermination(10, TimeUnit.SECONDS);
        progress.printf("restart: %d jobs submitted; waiting for their final decisions%n", submitted.size());
        long seen = decisions.decisions();
        long lastNew = System.nanoTime();
        while (decisions.unfinished(submitted) > 0 && System.nanoTime() - lastNew < stall.toNanos()) {
            Thread.sleep(200);
            if (decisions.decisions() != seen) {
                seen = decisions.decisions();
                lastNew = System.nanoTime();
            }
        }
    }

    /** Jobs submitted, decisions read, jobs without a final decision and decision ids read twice. */
    public void putOutcome(final Map<String, String> figures) {
        figures.put("jobs_submitted", Integer.toString(submitted.size()));
        figures.put("decisions", Long.toString(decisions.decisions()));
        figures.put("jobs_without_final_decision", Long.toString(decisions.unfinished(submitted)));
        figures.put("unfinished_by_last_decision", decisions.unfinishedByLastDecision(submitted).toString());
        figures.put("decisions_duplicated", Long.toString(decisions.duplicated()));
    }

    /** The audit of the topics as {@code gpupool audit} runs it: decisions, node commands, what the sink ran. */
    public AuditResult audit() {
        try (KafkaHistory h = new KafkaHistory(clients(), options.registryUrl(), topics)) {
            final Map<Integer, Long> decidedUpTo = h.placerPositions(applicationId());
            final List<PlacementDecision> recorded = h.decisions(null);
            final RealityAudit reality = h.whyNoSinkHistory().map(RealityAudit::notChecked)
                    .orElseGet(() -> new RealityAudit(h.sinkHistory(), null, RealityAudit.DEFAULT_GRACE));
            final AuditResult r = new Auditor(SchedulerApp.engineConfigs(Map.of()), Map.of(), AuditRange.ALL)
                    .run(h.journal(null, Map.of(), decidedUpTo), RecordedDecisions.of(recorded), h.nodeCommands(null),
                            reality);
            final StringWriter text = new StringWriter();
            r.print(new PrintWriter(text, true));
            text.toString().lines().forEach(l -> progress.println("restart: audit: " + l));
            return r;
        }
    }

    /** A steady mix: 1, 2, 4 or 8 GPUs on one node, running 2-5 s. */
    private static JobCommand submit(final String jobId, final int n) {
        final JobRequest r = JobRequest.newBuilder().setName("restart-bench").setTenant("tenant-" + (n & 3)).setPool(POOL)
                .setNodes(1).setGpusPerNode(1 << (n % 4)).setRuntimeEstimateMillis(RUNTIMES_MS[n % RUNTIMES_MS.length])
                .build();
        return JobCommand.newBuilder().setJobId(jobId).setCommandId("c-" + jobId).setRequestedAt(Instant.now())
                .setCommand(JobSubmit.newBuilder().setRequest(r).build()).build();
    }

    private Properties clients() {
        final Properties p = new Properties();
        p.putAll(options.clientOverrides());
        p.put("bootstrap.servers", options.bootstrapServers());
        return p;
    }

    @Override
    public void close() throws Exception {
        if (load != null) {
            load.shutdownNow();
        }
        for (int i = pipeline.size() - 1; i >= 0; i--) {
            pipeline.get(i).close();
        }
        BenchTopics.delete(options.bootstrapServers(), options.clientOverrides(), prefix, progress);
    }
}
