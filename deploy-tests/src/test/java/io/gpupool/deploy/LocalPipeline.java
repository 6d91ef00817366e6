package io.gpupool.deploy;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.collector.app.FleetCollector;
import io.gpupool.collector.app.LiveCollector;
import io.gpupool.collector.app.LiveOptions;
import io.gpupool.collector.publish.PublisherTopics;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.localstack.LocalStack;
import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.topics.TopicSetup;
import io.gpupool.metrics.MetricsServer;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.serde.SpecificAvroSerializer;
import io.gpupool.sink.SinkConfig;
import io.gpupool.sink.SinkRunner;
import io.gpupool.sink.apply.SimulatedApplier;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What exists of the gpupool pipeline, on one machine and free ports: the local stack (a real
 * KRaft broker and the registry), the catalog's topics, a simulated fleet, a live collector on a
 * node whose GPU and HCAs are real captures (see {@link DcgmCapture}), a sink with the simulated
 * applier, and the scheduler stream when its classes are on the classpath. Everything started is
 * stopped by {@link #close()}, in reverse order.
 */
final class LocalPipeline implements AutoCloseable {
    static final String POOL = "default";
    static final String SCHEDULER_MAIN = "io.gpupool.scheduler.app.SchedulerMain";

    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private final Map<String, List<String>> targets = new LinkedHashMap<>();
    private LocalStack stack;
    private DcgmCapture dcgm;
    private FleetCollector fleet;
    private boolean schedulerRunning;

    static LocalPipeline start(final Path dir) throws Exception {
        final LocalPipeline p = new LocalPipeline();
        try {
            p.startAll(dir);
        } catch (final Exception | Error e) {
            p.close();
            throw e;
        }
        return p;
    }

    private void startAll(final Path dir) throws Exception {
        stack = LocalStack.start(LocalStackSettings.defaults(dir.resolve("stack")));
        started.push(stack);
        final String bootstrap = stack.bootstrapServers();
        final String registry = stack.registryUrl().orElseThrow();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            new TopicSetup(admin, Duration.ofSeconds(30)).apply(TopicCatalog.defaults().all(), false);
        }

        fleet = FleetCollector.start(new FleetSpec(POOL, 4, 8, 2, 2, 2, 0, 1), Duration.ofSeconds(1),
                bootstrap, registry, PublisherTopics.defaults(), 1_000, 0);
        started.push(fleet);
        targets.put("gpupool-collector", List.of("127.0.0.1:" + fleet.metricsPort()));

        dcgm = new DcgmCapture();
        started.push(dcgm);
        final LiveCollector live = LiveCollector.start(new LiveOptions("gpu-node-1", POOL, "dcgm", "nvidia-smi", dcgm.url(),
                resource("/telemetry/sysfs/h100-ndr-ib-roce"), "none", null, Duration.ofSeconds(1), bootstrap, registry, 0,
                1_000, Map.of()));
        started.push(live);
        targets.put("gpupool-node", List.of("127.0.0.1:" + live.metricsPort()));

        final SinkRunner sink = SinkRunner.create(SinkConfig.defaults(bootstrap, registry, dir.resolve("sink")),
                new SimulatedApplier(60, Duration.ofMinutes(10))).start();
        started.push(sink);
        final MetricsServer sinkMetrics = MetricsServer.start(sink.metrics().registry(), "127.0.0.1", 0);
        started.push(sinkMetrics);
        targets.put("gpupool-sink", List.of("127.0.0.1:" + sinkMetrics.port()));

        // a quota for one tenant, so that the quota panel has both of its limits to show
        final Optional<SchedulerProcess> scheduler = SchedulerProcess.startIfPresent(SCHEDULER_MAIN, bootstrap, registry,
                dir.resolve("scheduler"), Map.of("tenant.team-a.guaranteed-gpus", "4", "tenant.team-a.max-gpus", "16"));
        if (scheduler.isPresent()) {
            started.push(scheduler.get());
            targets.put("gpupool-scheduler", List.of("127.0.0.1:" + scheduler.get().httpPort()));
            schedulerRunning = true;
            // The big job fits only a whole pool the scheduler already knows; arriving before the
            // inventory it is rejected as larger than the pool, and nothing is left waiting.
            awaitPoolGpus(scheduler.get().httpPort(), 4 * 8);
        }
        submitJobs(bootstrap, registry);
    }

    private static void awaitPoolGpus(final int httpPort, final int gpus) throws Exception {
        final HttpClient http = HttpClient.newHttpClient();
        final HttpRequest get = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + httpPort + "/pools/" + POOL)).build();
        await("the scheduler sees " + gpus + " GPUs in pool " + POOL).atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250)).until(() -> {
                    final HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
                    return r.statusCode() == 200
                            && new ObjectMapper().readTree(r.body()).path("gpus").path("total").asInt() >= gpus;
                });
    }

    /** A few jobs of two tenants (one that must wait for the others), and one undecodable record for the DLQ. */
    private static void submitJobs(final String bootstrap, final String registry) throws Exception {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        final String jobs = TopicCatalog.defaults().name(Topic.JOBS);
        final SpecificAvroSerializer<JobCommand> values = new SpecificAvroSerializer<>();
        values.configure(Map.of(RegistryClientConfig.URL, registry), false);
        try (KafkaProducer<String, JobCommand> producer = new KafkaProducer<>(p, new StringSerializer(), values)) {
            int n = 0;
            for (final String tenant : List.of("team-a", "team-b")) {
                for (int i = 0; i < 3; i++) {
                    producer.send(new ProducerRecord<>(jobs, "job-" + n, submit("job-" + n, tenant, 1, 2)));
                    n++;
                }
            }
            // Fits the pool only when it is empty: it waits behind the small jobs.
            producer.send(new ProducerRecord<>(jobs, "job-big", submit("job-big", "team-b", 4, 8)));
            producer.flush();
        }
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(jobs, "job-garbled", new byte[] {0, 0, 0, 0, 42, 1, 2, 3})).get();
        }
    }

    /**
     * A day, i.e. 24 minutes at the sink's 60x: no job ends while the test runs, so whichever jobs
     * the scheduler places first, the others stay queued and the queue panels have data. (With an
     * hour, the first jobs ended after a real minute, the waiting one started, and a late
     * evaluation found the queue empty.)
     */
    private static final long RUNTIME_MILLIS = 24 * 3_600_000L;

    private static JobCommand submit(final String id, final String tenant, final int nodes, final int gpusPerNode) {
        final JobRequest request = JobRequest.newBuilder().setName(id).setTenant(tenant).setPool(POOL).setNodes(nodes)
                .setGpusPerNode(gpusPerNode).setSimulatedRuntimeMillis(RUNTIME_MILLIS).build();
        return JobCommand.newBuilder().setJobId(id).setCommandId(id + "-submit").setRequestedAt(Instant.now())
                .setRequestedBy("deploy-tests").setCommand(JobSubmit.newBuilder().setRequest(request).build()).build();
    }

    private static Path resource(final String name) throws URISyntaxException {
        return Path.of(LocalPipeline.class.getResource(name).toURI());
    }

    /** Scrape targets (host:port) by Prometheus job, named as in prometheus/prometheus.yml. */
    Map<String, List<String>> targets() {
        return targets;
    }

    boolean schedulerRunning() {
        return schedulerRunning;
    }

    DcgmCapture dcgm() {
        return dcgm;
    }

    /** Leaf switches of the simulated fleet's nodes. */
    Set<String> fleetLeaves() {
        final Set<String> leaves = new TreeSet<>();
        fleet.fleet().nodeIds().forEach(n -> leaves.add(fleet.fleet().inventory(n, Instant.EPOCH).getLeaf()));
        return leaves;
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (final Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
