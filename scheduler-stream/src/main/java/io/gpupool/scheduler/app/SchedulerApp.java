package io.gpupool.scheduler.app;

import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.SnapshotTopic;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.scheduler.query.QueryServer;
import io.gpupool.scheduler.stream.JobSources;
import io.gpupool.scheduler.stream.JournalBacklog;
import io.gpupool.scheduler.stream.PoolEngines;
import io.gpupool.scheduler.stream.PoolGauges;
import io.gpupool.scheduler.stream.SchedulerMetrics;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.scheduler.stream.SchedulerTopology;
import io.gpupool.scheduler.stream.StreamThreadPolicy;
import io.gpupool.scheduler.stream.StreamsSettings;
import io.gpupool.scheduler.stream.TelemetryRules;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicSpec;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler application: both stages in one Kafka Streams instance, the query and metrics HTTP
 * server, and the pool gauges. {@link #start} returns once Streams is started (not yet RUNNING);
 * {@link #close} stops everything.
 */
public final class SchedulerApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerApp.class);
    /** How soon a tenant job topic made while the scheduler runs is read (the main consumer's metadata age). */
    static final String TENANT_TOPIC_DISCOVERY_MS = "30000";
    /** How soon a Streams metric made after the start (a task's, once it is assigned) is exported. */
    private static final Duration STREAMS_METRICS_REFRESH = Duration.ofSeconds(5);

    private final KafkaStreams streams;
    private final QueryServer http;
    private final ScheduledExecutorService gaugeRefresher;
    private final PrometheusMeterRegistry meters;
    private final KafkaStreamsMetrics streamsMetrics;
    private final PoolEngines engines;
    private final RestoreProgress restore;
    private final JournalBacklogMeter backlogMeter;
    private final AtomicBoolean closed = new AtomicBoolean();

    private SchedulerApp(final KafkaStreams streams, final QueryServer http, final ScheduledExecutorService refresher,
                         final PrometheusMeterRegistry meters, final KafkaStreamsMetrics streamsMetrics,
                         final PoolEngines engines, final RestoreProgress restore, final JournalBacklogMeter backlogMeter) {
        this.streams = streams;
        this.http = http;
        this.gaugeRefresher = refresher;
        this.meters = meters;
        this.streamsMetrics = streamsMetrics;
        this.engines = engines;
        this.restore = restore;
        this.backlogMeter = backlogMeter;
    }

    /** The engine settings checked once, so that a typo fails at start and not at the first journal entry. */
    public static Function<String, EngineConfig> engineConfigs(final Map<String, String> settings) {
        final Map<String, String> s = new TreeMap<>(settings);
        s.remove("pool");
        EngineConfig.fromSettings(s);
        final Map<String, EngineConfig> cache = new ConcurrentHashMap<>();
        return pool -> cache.computeIfAbsent(pool, p -> {
            final Map<String, String> withPool = new HashMap<>(s);
            withPool.put("pool", p);
            return EngineConfig.fromSettings(withPool);
        });
    }

    public static SchedulerApp start(final SchedulerOptions o) {
        final Function<String, EngineConfig> configs = engineConfigs(o.engineSettings());
        final Properties clients = new Properties();
        clients.putAll(o.clientOverrides());
        clients.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrapServers());
        final JobSources jobSources;
        final Properties compression;
        try (Admin admin = Admin.create(adminConfig(o, clients))) { // one admin client for the start-up steps
            createMissingTopics(admin, o);
            final int byIdPartitions = jobsByIdPartitions(admin, o);
            jobSources = o.tenantTopics() ? JobSources.withTenantTopics(byIdPartitions) : JobSources.sharedOnly(byIdPartitions);
            compression = OutputCompression.chosenByCaller(o.clientOverrides()) ? new Properties()
                    : OutputCompression.choose(admin, o.catalog(), o.bootstrapServers());
        }

        final Map<String, Object> serdeConfig = AvroSerdeConfig.forClient(o.clientOverrides(), o.registryUrl());
        final Codecs codecs = new Codecs(AvroSerdeConfig.registry(serdeConfig), AvroSerdeConfig.autoRegister(serdeConfig));

        final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final SchedulerMetrics metrics = new SchedulerMetrics(meters);
        final PoolEngines engines = new PoolEngines();
        final TopicNames topics = TopicNames.of(o.catalog());

        Properties props = StreamsSettings.local(o.applicationId(), o.bootstrapServers(), o.stateDir().toString());
        if (o.production()) {
            props = StreamsSettings.merge(props, StreamsSettings.productionProfile());
        }
        props = StreamsSettings.merge(props, compression);
        if (o.tenantTopics()) {
            // a new tenant's topic is found by the main consumer's metadata refresh: 30 s instead of Kafka's 5 min
            props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.METADATA_MAX_AGE_CONFIG), TENANT_TOPIC_DISCOVERY_MS);
        }
        // membership before the caller's settings, so that a --command-config file can still name its own
        props = StreamsSettings.merge(props, o.membership().settings(o.applicationId(), o.stateDir()));
        props = StreamsSettings.merge(props, o.clientOverrides());
        QueryServer http = null;
        if (!o.httpHost().isEmpty()) {
            http = QueryServer.bind(o.httpHost(), o.httpPort());
            props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, o.httpHost() + ":" + http.port());
        }
        final KafkaJournalReader journalReader = new KafkaJournalReader(new StreamsConfig(props), o.applicationId(),
                topics.journal());
        final JournalBacklog backlog = new JournalBacklog(o.shedJournalBacklog(), System::currentTimeMillis);
        final KafkaStreams streams = new KafkaStreams(SchedulerTopology.build(o.applicationId(), topics, codecs, metrics,
                engines, configs, o.snapshotEvery(), o.tickIntervalMs(), TelemetryRules.defaults(), o.maxClockAheadMs(), jobSources,
                journalReader, backlog), props);
        metrics.commitTimes().readFrom(streams::metrics);
        // a failed thread is replaced, but a thread that keeps failing shuts the client down (and /health says so)
        final StreamThreadPolicy threads = StreamThreadPolicy.defaults(meters);
        streams.setUncaughtExceptionHandler(threads);
        final PoolGauges gauges = new PoolGauges(engines, meters);
        final ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "gpupool-gauges");
            t.setDaemon(true);
            return t;
        });
        // Streams creates its task metrics only once tasks are assigned, after this binding; Micrometer's
        // default re-check every 60 s left the task panels empty for the first minute and after each rebalance.
        final KafkaStreamsMetrics streamsMetrics = new KafkaStreamsMetrics(streams, List.of(), refresher,
                STREAMS_METRICS_REFRESH);
        streamsMetrics.bindTo(meters);
        refresher.scheduleWithFixedDelay(() -> {
            try {
                gauges.refresh();
            } catch (RuntimeException e) {
                LOG.warn("pool gauges not refreshed", e);
            }
        }, 1, 5, TimeUnit.SECONDS);
        if (http != null) {
            http.reportThreadTrouble(threads::trouble);
            http.serve(streams, engines, meters, o.httpHost() + ":" + http.port());
        }
        final RestoreProgress restore = new RestoreProgress();
        streams.setGlobalStateRestoreListener(restore);
        streams.start();
        final JournalBacklogMeter backlogMeter = new JournalBacklogMeter(Admin.create(adminConfig(o, clients)),
                o.applicationId(), topics.journal(), backlog, meters).start();
        LOG.info("scheduler {} (instance {}) started against {}{}", o.applicationId(),
                o.membership().instanceIdFor(o.applicationId(), o.stateDir()), o.bootstrapServers(),
                http == null ? "" : "; queries and metrics on http://" + o.httpHost() + ":" + http.port());
        return new SchedulerApp(streams, http, refresher, meters, streamsMetrics, engines, restore, backlogMeter);
    }

    /** Creates the catalog topics the scheduler reads or writes that do not exist yet. */
    static void createMissingTopics(final Admin a, final SchedulerOptions o) {
        try {
            final Set<String> existing = a.listTopics().names().get(60, TimeUnit.SECONDS);
            final List<NewTopic> missing = new ArrayList<>();
            for (final TopicSpec spec : o.catalog().all()) {
                if (!existing.contains(spec.name())) {
                    missing.add(spec.newTopic());
                }
            }
            final TopicSpec journal = o.catalog().spec(Topic.JOURNAL);
            if (!existing.contains(SnapshotTopic.name(journal.name()))) {
                missing.add(SnapshotTopic.newTopic(journal)); // engine snapshots for audit
            }
            if (!missing.isEmpty()) {
                a.createTopics(missing).all().get(60, TimeUnit.SECONDS);
            }
        } catch (final ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create the scheduler's topics on " + o.bootstrapServers()
                        + ": " + e.getCause().getMessage(), e.getCause());
            }
        } catch (final TimeoutException e) {
            throw new IllegalStateException("no answer from Kafka at " + o.bootstrapServers() + " within 60 s", e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * How many partitions the repartition by job id has: its own when it exists, else the larger of jobs and
     * job events (as Kafka Streams sized it when the hop had a sub-topology of its own).
     */
    static int jobsByIdPartitions(final Admin a, final SchedulerOptions o) {
        final String byId = SchedulerTopology.jobsByIdTopic(o.applicationId());
        final String jobs = o.catalog().name(Topic.JOBS);
        final String events = o.catalog().name(Topic.JOB_EVENTS);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try {
            while (true) {
                try {
                    final Set<String> existing = a.listTopics().names().get(60, TimeUnit.SECONDS);
                    final List<String> ask = existing.contains(byId) ? List.of(byId) : List.of(jobs, events);
                    int partitions = 0;
                    for (final TopicDescription d : a.describeTopics(ask).allTopicNames().get(60, TimeUnit.SECONDS).values()) {
                        partitions = Math.max(partitions, d.partitions().size());
                    }
                    return partitions;
                } catch (final ExecutionException e) {
                    // topics created a moment before (createMissingTopics) can be listed and not yet described
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
        } catch (final ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the partitions of " + jobs + " and " + events + " on "
                    + o.bootstrapServers() + ": " + e.getMessage(), e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Properties adminConfig(final SchedulerOptions o, final Properties clients) {
        final Properties admin = new Properties();
        admin.putAll(clients);
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrapServers());
        return admin;
    }

    public KafkaStreams streams() {
        return streams;
    }

    public PoolEngines engines() {
        return engines;
    }

    public PrometheusMeterRegistry meters() {
        return meters;
    }

    /** The HTTP port (queries, /metrics), or -1 without a server. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    /** How far the state stores are in restoring from their changelogs (a restart's wait). */
    public RestoreProgress.Reading restore() {
        return restore.reading();
    }

    /** Waits until Streams is RUNNING. */
    public boolean awaitRunning(final Duration timeout) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (streams.state() == KafkaStreams.State.RUNNING) {
                return true;
            }
            if (streams.state() == KafkaStreams.State.ERROR || streams.state() == KafkaStreams.State.NOT_RUNNING) {
                return false;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /** Idempotent: a benchmark stops the scheduler before its try-with-resources does. */
    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        gaugeRefresher.shutdownNow();
        backlogMeter.close();
        streams.close(Duration.ofSeconds(30));
        streamsMetrics.close();
        if (http != null) {
            http.close();
        }
        meters.close();
    }
}
