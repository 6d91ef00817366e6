package io.gpupool.cli;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.ConfigFileOption;
import io.gpupool.cli.config.ConfigLayers;
import io.gpupool.cli.config.DurationConverter;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.scheduler.query.QueryEndpoint;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.stream.JournalBacklog;
import io.gpupool.scheduler.stream.Membership;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.scheduler.stream.StreamsSettings;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool scheduler}: the two-stage Kafka Streams scheduler against any cluster, until Ctrl-C. */
@Command(name = "scheduler", mixinStandardHelpOptions = true,
        description = {
            "Runs the scheduler (stage 1 sequencer + stage 2 placer, exactly-once) until Ctrl-C or --duration.",
            "Without --bootstrap-server it joins the local stack in --data-dir and publishes its query URL there",
            "for `gpupool queue` and `gpupool explain`. Queries and Prometheus metrics: http://HOST:PORT/ (/metrics)."})
public final class SchedulerCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Mixin
    ConfigFileOption configFile;

    @Option(names = "--registry-url", paramLabel = "URL",
            description = "Schema Registry URL. Default: the local stack's registry. Env GPUPOOL_REGISTRY_URL.")
    String registryUrl;

    @Option(names = "--application-id", defaultValue = SchedulerOptions.DEFAULT_APPLICATION_ID,
            description = "Kafka Streams application id; instances with the same id share the work (default ${DEFAULT-VALUE}).")
    String applicationId;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Local state directory (RocksDB stores). Default: <data-dir>/scheduler-state.")
    Path stateDir;

    @Option(names = "--http-host", defaultValue = "127.0.0.1",
            description = "Host name other instances and clients reach this one at (default ${DEFAULT-VALUE}).")
    String httpHost;

    @Option(names = "--http-port", defaultValue = "0", description = "Query and metrics port; 0 = any free port (default).")
    int httpPort;

    @Option(names = "--profile", defaultValue = "local",
            description = "local (exactly-once on one broker, replication 1) or production (RF 3, min ISR 2, standby replicas).")
    String profile;

    @Option(names = "--engine", paramLabel = "KEY=VALUE",
            description = "Engine setting for every pool, e.g. policy=fgd, tenant.ml.max-gpus=64 (repeatable).")
    Map<String, String> engine = new TreeMap<>();

    @Option(names = "--snapshot-every", defaultValue = "" + SchedulerOptions.DEFAULT_SNAPSHOT_EVERY,
            description = "Journal entries between two stored engine snapshots of a pool at most (default ${DEFAULT-VALUE}); sooner once the entries since hold four times as many bytes as the last snapshot (after 1,000); up to 4x as many after a snapshot of more than 1 MB and 256 bytes per entry (one entry per 256 bytes), so that a deep queue's large snapshots are not written as often.")
    int snapshotEvery;

    @Option(names = "--tick-interval", converter = DurationConverter.class, defaultValue = "5s",
            description = "Stream time between two clock ticks in the journal (default ${DEFAULT-VALUE}).")
    Duration tickInterval;

    @Option(names = "--max-clock-ahead", converter = DurationConverter.class, defaultValue = "5s",
            description = "An input record stamped later than this scheduler's clock plus this is journaled at that"
                    + " bound, its own time kept as evidence: no producer's clock moves the pool's (default ${DEFAULT-VALUE}).")
    Duration maxClockAhead;

    @Option(names = "--instance-id", paramLabel = "NAME",
            description = "This instance's name in the Kafka Streams group (static membership): a restart under the same"
                    + " name takes its tasks back at once instead of after the session timeout. Unique per instance."
                    + " Default: <application-id>-<host name>-<digest of the state directory>, stable across restarts.")
    String instanceId = "";

    @Option(names = "--session-timeout", converter = DurationConverter.class, defaultValue = "10s",
            description = "How long the group waits for an instance that stopped answering before its tasks move to"
                    + " another: longer than a restart takes, short for a quick failover (default ${DEFAULT-VALUE}).")
    Duration sessionTimeout;

    @Option(names = "--standby-replicas", paramLabel = "N", defaultValue = "-1",
            description = "Warm copies of each task's state on other instances, for a failover without a restore."
                    + " Default: the profile's (local 0, production 1).")
    int standbyReplicas;

    @Option(names = "--compression", paramLabel = "CODEC",
            description = "Compression of what the scheduler writes (decisions, node commands, DLQ, journal): none, gzip,"
                    + " snappy, lz4 or zstd. Default lz4 where the broker stores decisions, node commands and the DLQ as gzip"
                    + " (compression.type=gzip, as gpupool creates them), else gzip: kafkajs reads no other codec.")
    String compression = "";

    @Option(names = "--tenant-topics", description = "Also read every tenant's job topic (<jobs topic>.<tenant>, e.g."
            + " gpupool.jobs.team-a): a job written to one is that tenant's, one naming another tenant is REJECTED"
            + " (WRONG_TENANT) and a cancel of another tenant's job is refused. With ACLs that let each tenant write only"
            + " its topic, no tenant can pass for another (DESIGN.md, \"Tenants\").")
    boolean tenantTopics;

    @Option(names = "--shed-journal-backlog", paramLabel = "ENTRIES", defaultValue = "" + JournalBacklog.DEFAULT_LIMIT,
            description = "When the journal holds more than this many entries the placer has not applied, a new job's"
                    + " submit is answered at once with REJECTED OVERLOADED (its id stays free: submit it again later)"
                    + " instead of waiting behind them; cancels and job events always pass. 0 never sheds (default ${DEFAULT-VALUE}).")
    long shedJournalBacklog;

    @Option(names = "--duration", converter = DurationConverter.class, description = "Stop after this long (e.g. 30s).")
    Duration duration;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (!profile.equals("local") && !profile.equals("production")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--profile must be local or production, not " + profile);
        }
        final PrintWriter out = spec.commandLine().getOut();
        final boolean local = cluster.dataDir().running().isPresent() && (registryUrl == null || registryUrl.isBlank());
        final String registry = registryUrl != null && !registryUrl.isBlank() ? registryUrl.trim()
                : cluster.dataDir().running().flatMap(StackDescriptor::registryUrl).orElseThrow(() ->
                        new CommandLine.ParameterException(spec.commandLine(),
                                "no schema registry: pass --registry-url URL, or start the local stack with `gpupool up`"));
        final Path state = stateDir != null ? stateDir : cluster.dataDir().path().resolve("scheduler-state");
        final SchedulerOptions o;
        try {
            final Properties clients = cluster.clientProperties();
            if (!compression.isBlank()) {
                clients.putAll(StreamsSettings.compression(compression));
            }
            o = new SchedulerOptions(applicationId, cluster.bootstrapServers(), registry, clients,
                    profile.equals("production"), state, httpHost, httpPort, engine, snapshotEvery,
                    tickInterval.toMillis(), TopicCatalog.defaults().withOverrides(ConfigLayers.of(spec).fileEntries()), maxClockAhead.toMillis(),
                    new Membership(instanceId, sessionTimeout, standbyReplicas)).withTenantTopics(tenantTopics)
                    .withShedJournalBacklog(shedJournalBacklog);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        final SchedulerApp app;
        try {
            app = SchedulerApp.start(o);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        final String url = "http://" + httpHost + ":" + app.httpPort();
        if (local) {
            QueryEndpoint.publish(cluster.dataDir().path(), url);
        }
        final CountDownLatch stop = new CountDownLatch(1);
        final Thread hook = new Thread(stop::countDown, "gpupool-scheduler-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.printf("gpupool scheduler: %s, instance %s, against %s (%s profile); queries and metrics on %s%n",
                    applicationId, o.membership().instanceIdFor(applicationId, state), o.bootstrapServers(), profile, url);
            out.flush();
            if (duration == null) {
                stop.await();
            } else {
                stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);
            }
            return 0;
        } finally {
            if (local) {
                QueryEndpoint.withdraw(cluster.dataDir().path(), url);
            }
            app.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is what woke us
            }
        }
    }
}
