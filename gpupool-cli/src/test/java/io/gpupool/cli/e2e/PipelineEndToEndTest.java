package io.gpupool.cli.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.NetworkRequirement;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.TopologyMode;
import io.gpupool.avro.TopologyScope;
import io.gpupool.cli.e2e.LocalPipeline.Cli;
import io.gpupool.cli.up.PipelineParts;
import io.gpupool.cli.up.SchedulerProbe;
import io.gpupool.cli.workload.JobCommandProducer;
import io.gpupool.cli.workload.JobCommands;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.query.QueryEndpoint;
import io.gpupool.sink.SinkConfig;
import io.gpupool.sink.SinkRunner;
import io.gpupool.sink.apply.SimulatedApplier;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole pipeline on the local stack, wired by the same services as {@code gpupool up}: topics,
 * the scheduler (Kafka Streams, exactly-once), the simulated fleet (16 nodes x 8 GPUs, an
 * InfiniBand and a RoCE island), the sink (simulated jobs, and jobs with a command as real
 * processes). Jobs go in through {@code gpupool submit}/{@code cancel} or the same producer.
 * Simulated jobs run in real time (time scale 1), so their runtimes are test seconds.
 */
@ExtendWith(LocalStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Execution(ExecutionMode.CONCURRENT)
class PipelineEndToEndTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private Path dir;

    private TestStack stack;
    private TopicCatalog catalog;
    private Path configFile;
    private LocalPipeline pipeline;
    private PipelineParts parts;
    private JobCommandProducer jobs;
    private TopicLog<PlacementDecision> decisions;
    private TopicLog<JobEvent> events;
    private SchedulerProbe scheduler;

    @BeforeAll
    void startThePipeline(final TestStack stack, @TempDir final Path tempDir) throws Exception {
        this.stack = stack;
        this.dir = tempDir;
        pipeline = LocalPipeline.start(stack, dir, "e2e", "--nodes", "16", "--gpus-per-node", "8", "--leaves", "4",
                "--seed", "7", "--telemetry-interval", "1s", "--time-scale", "1", "--exec-jobs", "--no-generator",
                "--progress-every", "0s");
        catalog = pipeline.catalog;
        configFile = pipeline.configFile;
        parts = pipeline.parts;
        final Path dataDir = pipeline.dataDir;
        scheduler = new SchedulerProbe(QueryEndpoint.find(dataDir).orElseThrow());
        final Properties client = new Properties();
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        jobs = new JobCommandProducer(client, stack.requireRegistryUrl(), catalog.name(Topic.JOBS));
        decisions = new TopicLog<>(stack, catalog.name(Topic.DECISIONS), PlacementDecision.class);
        events = new TopicLog<>(stack, catalog.name(Topic.JOB_EVENTS), JobEvent.class);
    }

    @AfterAll
    void stopThePipeline() throws Exception {
        for (final AutoCloseable c : new AutoCloseable[] {events, decisions, jobs, pipeline}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    @Order(1)
    void jobsOfEveryKindArePlacedRunCompleteAndReleaseTheirGpus() throws Exception {
        submit("e2e-single", request("single").setGpusPerNode(1).setSimulatedRuntimeMillis(5_000L));
        submit("e2e-node", request("node").setGpusPerNode(8).setTopology(TopologyScope.SAME_NODE)
                .setSimulatedRuntimeMillis(5_000L));
        submit("e2e-gang", request("gang").setNodes(2).setGpusPerNode(8).setTopology(TopologyScope.SAME_LEAF)
                .setTopologyMode(TopologyMode.REQUIRED).setNetwork(NetworkRequirement.INFINIBAND).setSimulatedRuntimeMillis(5_000L));
        // The fractional job goes through the CLI: submit prints the id, then the decision.
        final Cli fraction = cli("submit", "--job-id", "e2e-fraction", "--tenant", "speech", "--gpu-milli", "500",
                "--gpu-memory-mib", "20000", "--simulated-runtime", "5s", "--wait", "--timeout", "90s");
        assertThat(fraction.code()).as(fraction.err()).isZero();
        assertThat(fraction.out()).startsWith("e2e-fraction\n").contains("decision=PLACED").containsPattern("node=node-\\d+ gpu_indexes=\\d+@500m");

        for (final String job : List.of("e2e-single", "e2e-node", "e2e-gang", "e2e-fraction")) {
            awaitDecision(job, DecisionOutcome.PLACED);
        }
        // The whole InfiniBand island (8 nodes x 8 GPUs) cannot be had while the others run there or may.
        submit("e2e-island", request("island").setNodes(8).setGpusPerNode(8).setNetwork(NetworkRequirement.INFINIBAND)
                .setSimulatedRuntimeMillis(2_000L));
        final PlacementDecision queued = decisions.await(d -> d.getJobId().equals("e2e-island"), WAIT, "decision for e2e-island");
        assertThat(queued.getOutcome()).as("the island job must wait first: %s", queued).isEqualTo(DecisionOutcome.QUEUED);
        assertThat(queued.getReasonCode()).isNotBlank();

        for (final String job : List.of("e2e-single", "e2e-node", "e2e-gang", "e2e-fraction")) {
            awaitEvent(job, JobEventType.COMPLETED);
        }
        // each gang node reports its own completion, not necessarily together: wait for the second
        final String firstGangNode = awaitEvent("e2e-gang", JobEventType.COMPLETED).getNodeId();
        events.await(e -> e.getJobId().equals("e2e-gang") && e.getType() == JobEventType.COMPLETED
                && !e.getNodeId().equals(firstGangNode), WAIT, "COMPLETED of e2e-gang on its second node");
        assertThat(events.all().stream().filter(e -> e.getJobId().equals("e2e-gang") && e.getType() == JobEventType.COMPLETED)
                .map(JobEvent::getNodeId).collect(Collectors.toSet())).as("one completion per gang node").hasSize(2);
        final PlacementDecision placed = awaitDecision("e2e-island", DecisionOutcome.PLACED);
        assertThat(placed.getAssignments()).hasSize(8);
        awaitEvent("e2e-island", JobEventType.COMPLETED);

        awaitPoolIdle();
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    @Order(2)
    void anXidOnABusyGpuEvictsTheJobAndItIsPlacedElsewhere() throws Exception {
        submit("e2e-xid", request("xid").setGpusPerNode(1).setSimulatedRuntimeMillis(600_000L));
        final PlacementDecision first = awaitDecision("e2e-xid", DecisionOutcome.PLACED);
        final String node = first.getAssignments().get(0).getNodeId();
        final int gpu = first.getAssignments().get(0).getGpus().get(0).getIndex();
        awaitEvent("e2e-xid", JobEventType.STARTED);
        assertThat(parts.fleet().orElseThrow().busyGpus().snapshot()).as("the fleet shows what the sink runs")
                .contains(first.getAssignments().get(0).getGpus().get(0).getUuid());

        parts.fleet().orElseThrow().faults().xid(node, gpu, 79);

        final PlacementDecision evicted = awaitDecision("e2e-xid", DecisionOutcome.EVICTED);
        assertThat(evicted.getMessage() + evicted.getReasonCode() + evicted.getEvidence()).containsIgnoringCase("xid");
        final JobEvent stopped = awaitEvent("e2e-xid", JobEventType.EVICTED);
        assertThat(stopped.getNodeId()).isEqualTo(node);
        final PlacementDecision again = decisions.await(d -> d.getJobId().equals("e2e-xid")
                && d.getOutcome() == DecisionOutcome.PLACED && !d.getDecisionId().equals(first.getDecisionId()), WAIT,
                "the evicted job placed again");
        final var a = again.getAssignments().get(0);
        assertThat(a.getNodeId() + "/" + a.getGpus().get(0).getIndex()).as("not on the failed GPU").isNotEqualTo(node + "/" + gpu);

        jobs.sendAndWait(JobCommands.cancel("e2e-xid", "test over", "e2e"));
        awaitDecision("e2e-xid", DecisionOutcome.CANCELLED);
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    @Order(3)
    void aCancelStopsARunningExecJobsRealProcess() throws Exception {
        final Path pidFile = dir.resolve("job.pid");
        final Path termFile = dir.resolve("job.term");
        final Path script = dir.resolve("job.sh");
        Files.writeString(script, "#!/bin/bash\necho $$ > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile
                + "\ntrap 'echo \"term $CUDA_VISIBLE_DEVICES\" > " + termFile + "; exit 143' TERM\nsleep 1000 &\nwait\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));

        final Cli submit = cli("submit", "--job-id", "e2e-exec", "--tenant", "vision", "--gpus", "2", "--grace", "5s",
                "--wait", "--timeout", "90s", "--", script.toString());
        assertThat(submit.code()).as(submit.err()).isZero();
        assertThat(submit.out()).startsWith("e2e-exec\n").contains("decision=PLACED");
        awaitEvent("e2e-exec", JobEventType.STARTED);
        await("the job's pid file").atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> Files.exists(pidFile));
        final ProcessHandle process = ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim())).orElseThrow();
        assertThat(process.isAlive()).isTrue();

        final Cli cancel = cli("cancel", "e2e-exec", "--reason", "user changed their mind", "--wait", "--timeout", "90s");
        assertThat(cancel.code()).as(cancel.err()).isZero();
        assertThat(cancel.out()).startsWith("e2e-exec\n").contains("decision=CANCELLED").contains("user changed their mind");
        final JobEvent evicted = awaitEvent("e2e-exec", JobEventType.EVICTED);
        assertThat(evicted.getReason()).contains("SIGTERM");
        process.onExit().get(30, TimeUnit.SECONDS);
        assertThat(process.isAlive()).isFalse();
        assertThat(Files.readString(termFile).trim()).as("the job got SIGTERM and ran its trap").matches("term \\d+,\\d+");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    @Order(4)
    void aSinkStoppedAndRestartedMidRunAppliesNothingTwice() throws Exception {
        final List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add("e2e-restart-" + i);
            submit(ids.get(i), request("restart").setGpusPerNode(2).setSimulatedRuntimeMillis(8_000L));
        }
        for (final String id : ids) {
            awaitEvent(id, JobEventType.STARTED);
        }
        final SinkRunner first = parts.takeSink().orElseThrow();
        first.close();
        // Placed while no sink runs: their commands wait in Kafka.
        for (int i = 4; i < 7; i++) {
            ids.add("e2e-restart-" + i);
            submit(ids.get(i), request("restart").setGpusPerNode(2).setSimulatedRuntimeMillis(3_000L));
            awaitDecision(ids.get(i), DecisionOutcome.PLACED);
        }
        final SinkConfig config = SinkConfig.defaults(stack.bootstrapServers(), stack.requireRegistryUrl(),
                dir.resolve("stack").resolve("sink")).withTopics(catalog);
        try (SinkRunner second = SinkRunner.create(config, new SimulatedApplier(1, Duration.ofMinutes(10))).start()) {
            for (final String id : ids) {
                awaitEvent(id, JobEventType.COMPLETED);
            }
            // A duplicate would come right after: the counts must hold for a while.
            await("each command applied once").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertEachCommandAppliedOnce(ids));
            awaitPoolIdle();
        }
    }

    private void assertEachCommandAppliedOnce(final List<String> ids) {
        for (final String id : ids) {
            final List<JobEvent> ofJob = events.all().stream().filter(e -> e.getJobId().equals(id)).toList();
            // Each command (the ALLOCATE, later the RELEASE) applied once. The stop was clean (every event
            // acknowledged), so nothing may be re-sent either: raw counts, not distinct event ids.
            final Map<String, Long> perCommand = ofJob.stream().filter(e -> e.getType() == JobEventType.APPLIED)
                    .collect(Collectors.groupingBy(JobEvent::getCommandId, Collectors.counting()));
            assertThat(perCommand).as("APPLIED per command of %s: %s", id, ofJob).isNotEmpty().allSatisfy((c, n) ->
                    assertThat(n).as("APPLIED events of command %s", c).isEqualTo(1));
            for (final JobEventType type : List.of(JobEventType.STARTED, JobEventType.COMPLETED)) {
                assertThat(ofJob.stream().filter(e -> e.getType() == type).count())
                        .as("%s events of %s: %s", type, id, ofJob).isEqualTo(1);
            }
        }
    }

    /** Waits until the query API shows no GPU allocated and nothing queued: every job's capacity is back. */
    private void awaitPoolIdle() {
        await("pool idle").atMost(WAIT).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            final JsonNode pool = scheduler.pool(PipelineParts.POOL).orElseThrow();
            assertThat(pool.path("gpus").path("allocated").asLong()).as("capacity released: %s", pool).isZero();
            assertThat(pool.path("queue").path("total").asLong()).as("queue: %s", pool).isZero();
        });
        assertThat(scheduler.pool(PipelineParts.POOL).orElseThrow().path("gpus").path("total").asLong()).isEqualTo(128);
    }

    private JobRequest.Builder request(final String name) {
        return JobRequest.newBuilder().setName(name).setTenant("vision").setPool(PipelineParts.POOL).setPriorityClass("batch");
    }

    private void submit(final String jobId, final JobRequest.Builder request) throws InterruptedException {
        jobs.sendAndWait(JobCommands.submit(jobId, request.build(), "e2e"));
    }

    private PlacementDecision awaitDecision(final String jobId, final DecisionOutcome outcome) throws InterruptedException {
        return decisions.await(d -> d.getJobId().equals(jobId) && d.getOutcome() == outcome, WAIT, outcome + " of " + jobId);
    }

    private JobEvent awaitEvent(final String jobId, final JobEventType type) throws InterruptedException {
        return events.await(e -> e.getJobId().equals(jobId) && e.getType() == type, WAIT, type + " of " + jobId);
    }

    private Cli cli(final String... args) {
        return pipeline.cli(args);
    }
}
