package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.LinkLayer;
import io.gpupool.avro.NodeInventory;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerializer;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * {@code gpupool jobs}, {@code nodes}, {@code pool} (and the {@code -o} and {@code --watch} every read command takes)
 * against a real scheduler on the local stack: two 4-GPU nodes, two 4-GPU jobs that fill them and a third that waits.
 */
@ExtendWith(LocalStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReadViewsOnStackTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchedulerApp app;
    private String url;

    @BeforeAll
    void startASchedulerWithTwoFullNodesAndAWaitingJob(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("cli-views");
        final Map<String, String> names = new HashMap<>();
        for (final Topic t : Topic.values()) {
            names.put(TopicCatalog.PREFIX + t.id() + ".name", prefix + "." + t.id());
        }
        final TopicCatalog catalog = TopicCatalog.defaults().withOverrides(names);
        final SchedulerOptions o = new SchedulerOptions(prefix + "-app", stack.bootstrapServers(), stack.requireRegistryUrl(),
                new Properties(), false, Files.createTempDirectory("gpupool-cli-views-"), "127.0.0.1", 0, Map.of(), 100,
                5_000, catalog);
        final Map<String, Object> serde = Map.of(RegistryClientConfig.URL, stack.requireRegistryUrl());
        app = SchedulerApp.start(o);
        assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
        url = "http://127.0.0.1:" + app.httpPort();
        try (KafkaProducer<String, SpecificRecord> p = new KafkaProducer<>(stack.producerConfig(), new StringSerializer(),
                new SpecificAvroSerializer<>(AvroSerdeConfig.registry(serde), true, false))) {
            p.send(new ProducerRecord<>(catalog.name(Topic.INVENTORY), "v0", node("v0", "leaf-a", LinkLayer.INFINIBAND)));
            p.send(new ProducerRecord<>(catalog.name(Topic.INVENTORY), "v1", node("v1", "leaf-b", LinkLayer.ETHERNET)));
            p.flush();
            p.send(new ProducerRecord<>(catalog.name(Topic.JOBS), "big0", submit("big0", 4)));
            p.send(new ProducerRecord<>(catalog.name(Topic.JOBS), "big1", submit("big1", 4)));
            p.flush();
            // the waiting job must arrive after both nodes are full
            await("both placed").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
                    .until(() -> CliRun.of("jobs", "--state", "running", "--scheduler-url", url).out(),
                            out -> out.contains("big0") && out.contains("big1"));
            p.send(new ProducerRecord<>(catalog.name(Topic.JOBS), "waits", submit("waits", 2)));
            p.flush();
        }
        await("waits queued").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
                .until(() -> CliRun.of("jobs", "--state", "queued", "--scheduler-url", url).out().contains("waits"));
    }

    @AfterAll
    void stopTheScheduler() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    @Order(1)
    void jobsShowsThePlacedJobsWithNodeAndGpusAndTheQueuedOneWithItsReason() throws Exception {
        final CliRun jobs = CliRun.of("jobs", "--scheduler-url", url);
        assertThat(jobs.exitCode()).as(jobs.err()).isZero();
        assertThat(jobs.out().lines().findFirst().orElseThrow())
                .containsSubsequence("JOBID", "POOL", "TENANT", "STATE", "AGE", "ELAPSED", "START", "NODES:GPUS", "REASON");
        final String nodeOfBig0 = nodeOf("big0");
        assertThat(jobs.out()).containsPattern("big0 +views +team +placed +\\S+ +\\S+ +(\\S+ ago|now) +" + nodeOfBig0 + ":0-3 +PLACED");
        final String waits = line(jobs.out(), "waits");
        assertThat(waits).containsPattern("waits +views +team +queued").contains(" - ");
        assertThat(waits).containsPattern("[A-Z_]{6,}: .+"); // the reason, with its message
        assertThat(waits).doesNotContainPattern("\\d{13}"); // no raw epoch ms for people

        final CliRun onNode = CliRun.of("jobs", "--node", nodeOfBig0, "--scheduler-url", url);
        assertThat(onNode.out()).contains("big0").doesNotContain("big1").doesNotContain("waits");
        final CliRun queued = CliRun.of("jobs", "--state", "queued", "--tenant", "team", "--scheduler-url", url);
        assertThat(queued.out()).contains("waits").doesNotContain("big0");
        final CliRun otherTenant = CliRun.of("jobs", "--tenant", "nobody", "--scheduler-url", url);
        assertThat(otherTenant.out()).contains("no jobs");

        final CliRun bad = CliRun.of("jobs", "--state", "sleeping", "--scheduler-url", url);
        assertThat(bad.exitCode()).isEqualTo(ExitCodes.USAGE.code());
        assertThat(bad.err()).contains("unknown state 'sleeping'", "queued, running, finished or all");
    }

    @Test
    @Order(2)
    void jsonAndYamlCarryTheRawValues() throws Exception {
        final CliRun json = CliRun.of("jobs", "-o", "json", "--scheduler-url", url);
        assertThat(json.exitCode()).as(json.err()).isZero();
        final JsonNode jobs = JSON.readTree(json.out());
        assertThat(jobs.isArray()).isTrue();
        final JsonNode big0 = find(jobs, "big0");
        assertThat(big0.path("state").asText()).isEqualTo("placed");
        assertThat(big0.path("submittedMs").isNumber()).isTrue();
        assertThat(big0.path("submittedMs").asLong()).isBetween(System.currentTimeMillis() - 600_000, System.currentTimeMillis());
        assertThat(big0.path("placement").get(0).path("gpus").toString()).isEqualTo("[0,1,2,3]");
        assertThat(find(jobs, "waits").path("reason").path("code").asText()).isNotBlank();

        final JsonNode yaml = new YAMLMapper().readTree(CliRun.of("nodes", "-o", "yaml", "--scheduler-url", url).out());
        assertThat(yaml.size()).isEqualTo(2);
        final JsonNode pool = JSON.readTree(CliRun.of("pool", "views", "-o", "json", "--scheduler-url", url).out()).get(0);
        assertThat(pool.path("gpus").path("total").asLong()).isEqualTo(8);
        assertThat(pool.path("utilisation").path("allocatedPct").asDouble()).isEqualTo(100.0);

        final CliRun explain = CliRun.of("explain", "waits", "-o", "json", "--scheduler-url", url);
        assertThat(JSON.readTree(explain.out()).path("jobId").asText()).isEqualTo("waits");
        assertThat(CliRun.of("jobs", "-o", "xml", "--scheduler-url", url).err()).contains("use table, wide, json or yaml");
    }

    @Test
    @Order(3)
    void nodesShowsTheAllocatedGpusOnTheRightNodeWithLeafAndFabric() throws Exception {
        final CliRun nodes = CliRun.of("nodes", "--scheduler-url", url);
        assertThat(nodes.exitCode()).as(nodes.err()).isZero();
        assertThat(nodes.out().lines().findFirst().orElseThrow())
                .containsSubsequence("NODE", "POOL", "LEAF", "FABRIC", "MODEL", "GPUS", "FREE", "ALLOC", "BUSY", "UNHEALTHY", "JOBS");
        final String big0 = nodeOf("big0");
        assertThat(line(nodes.out(), big0)).containsPattern(big0 + " +views +leaf-\\w +(infiniband|roce) +A100 +4 +0 +4 +0 +0 +big0 +-");
        assertThat(line(nodes.out(), "v0")).contains("leaf-a", "infiniband");
        assertThat(line(nodes.out(), "v1")).contains("leaf-b", "roce");
        final CliRun wide = CliRun.of("nodes", "-o", "wide", "--scheduler-url", url);
        assertThat(wide.out().lines().findFirst().orElseThrow()).contains("SPINE", "CPU_FREE", "TELEMETRY");
    }

    @Test
    @Order(4)
    void poolShowsCapacityByModelAndUsagePerTenant() {
        final CliRun pool = CliRun.of("pool", "--scheduler-url", url);
        assertThat(pool.exitCode()).as(pool.err()).isZero();
        assertThat(pool.out()).contains("pool views: 2 nodes, 8 GPUs (8 allocatable, 0 unhealthy); allocated 8 (100.0%), "
                + "busy 0 (0.0%); 1 queued");
        assertThat(pool.out()).containsPattern("A100 +8 +8 +8 +0 +0 +0");
        assertThat(pool.out()).containsPattern("team +8 +2 +1 +0 +-");
        assertThat(CliRun.of("pool", "nope", "--scheduler-url", url).err()).contains("no pool nope");
    }

    @Test
    @Order(5)
    void queueAndExplainShowTimesForPeople() {
        final CliRun queue = CliRun.of("queue", "--scheduler-url", url);
        assertThat(queue.exitCode()).as(queue.err()).isZero();
        assertThat(queue.out()).contains("WAITING", "EXPECTED_START").doesNotContain("SUBMITTED_MS");
        assertThat(line(queue.out(), "waits")).containsPattern("waits +views +team +batch +0 +queued +\\d+(\\.\\d)?(ms|s|m) ");
        final CliRun explain = CliRun.of("explain", "big0", "--scheduler-url", url);
        assertThat(explain.out()).containsPattern("submitted \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d \\((\\d+[smhd] ago|now)\\), waited ")
                .containsPattern("started \\d{4}-\\d\\d-\\d\\dT[\\d:]+ \\(.+\\), running for ")
                .containsPattern("expected to end .+ \\(runtime estimate .+\\)");
        assertThat(explain.out()).doesNotContainPattern("\\d{13}");
    }

    @Test
    @Order(6)
    void watchRedrawsAndEndsCleanlyOnCtrlC() throws Exception {
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), Gpupool.class.getName(), "jobs",
                "--watch", "--interval", "300ms", "--scheduler-url", url));
        final Path err = Files.createTempFile("gpupool-watch-", ".err");
        final Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        final StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            int frames = 0;
            for (String l = r.readLine(); l != null && frames < 2; l = r.readLine()) {
                out.append(l).append('\n');
                frames += l.startsWith("every 300ms: gpupool jobs") ? 1 : 0;
            }
            p.destroy(); // SIGTERM: the shutdown hooks run as on Ctrl-C
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(out).contains("big0", "waits");
        assertThat(Files.readString(err)).contains("gpupool jobs: stopped watching");
        Files.delete(err);
    }

    @Test
    @Order(7)
    void watchEndsWithAMessageWhenTheSchedulerGoesAway() throws Exception {
        final String[] args = {"nodes", "--watch", "--interval", "200ms", "--scheduler-url", url};
        final CommandLine cli = Gpupool.commandLine(args, Map.of());
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        final CompletableFuture<Integer> watching = CompletableFuture.supplyAsync(() -> cli.execute(args));
        await("a frame").atMost(Duration.ofSeconds(30)).until(() -> out.toString().contains("v1"));
        app.close();
        app = null;
        assertThat(watching.get(60, TimeUnit.SECONDS)).isEqualTo(ExitCodes.NO_ANSWER.code());
        assertThat(out.toString()).contains("every 200ms: gpupool nodes", "v0");
        assertThat(err.toString()).contains("does not answer").contains("stopped watching");
    }

    private String nodeOf(final String job) throws Exception {
        final JsonNode jobs = JSON.readTree(CliRun.of("jobs", "--state", "running", "-o", "json", "--scheduler-url", url).out());
        return find(jobs, job).path("placement").get(0).path("nodeId").asText();
    }

    private static JsonNode find(final JsonNode jobs, final String id) {
        for (final JsonNode j : jobs) {
            if (id.equals(j.path("jobId").asText())) {
                return j;
            }
        }
        throw new AssertionError("no " + id + " in " + jobs);
    }

    private static String line(final String out, final String first) {
        return out.lines().filter(l -> l.startsWith(first + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no line for " + first + " in\n" + out));
    }

    private static NodeInventory node(final String id, final String leaf, final LinkLayer fabric) {
        final List<GpuInfo> gpus = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            gpus.add(GpuInfo.newBuilder().setUuid("GPU-" + id + "-" + i).setIndex(i).setModel("A100").build());
        }
        return NodeInventory.newBuilder().setNodeId(id).setPool("views").setLeaf(leaf).setObservedAt(Instant.EPOCH)
                .setSource("test").setGpus(gpus)
                .setHcas(List.of(HcaPort.newBuilder().setName("mlx5_0").setPort(1).setLinkLayer(fabric).setLeaf(leaf).build()))
                .build();
    }

    private static JobCommand submit(final String id, final int gpus) {
        return JobCommand.newBuilder().setJobId(id).setCommandId("c-" + id).setCommand(JobSubmit.newBuilder()
                .setRequest(JobRequest.newBuilder().setName(id).setTenant("team").setPool("views").setGpusPerNode(gpus).build())
                .build()).build();
    }
}
