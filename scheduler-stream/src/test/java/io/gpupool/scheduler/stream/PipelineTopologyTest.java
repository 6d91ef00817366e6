package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.EngineSettings;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.avro.PlacementDecision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Both stages end to end under the TopologyTestDriver: inventory and jobs in, decisions and commands out. */
class PipelineTopologyTest {
    private Harness h;

    @BeforeEach
    void start() throws Exception {
        h = new Harness(1000, 10_000);
        for (int n = 0; n < 4; n++) {
            final String id = "n" + n;
            h.inventory.pipeInput(id, Fixtures.node("p1", id, n < 2 ? "leaf-a" : "leaf-b", 8), 1_000);
        }
        setupEntries = h.journal().size();
    }

    /** Journal entries the inventory produced (4 nodes and the first clock tick). */
    private int setupEntries;

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void aJobFlowsThroughBothStagesAndTheDecisionNamesItsJournalCause() {
        h.jobs.pipeInput("job-1", Fixtures.submit("job-1", Fixtures.request("p1", 2, 8).build()), 2_000);

        final List<TestRecord<String, PlacementDecision>> out = h.decisions.readRecordsToList();
        assertThat(out).hasSize(1);
        final PlacementDecision d = out.get(0).value();
        assertThat(out.get(0).key()).isEqualTo("job-1");
        assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.PLACED);
        assertThat(d.getAssignments()).hasSize(2);
        assertThat(d.getAssignments()).allSatisfy(a -> assertThat(a.getGpus()).hasSize(8));
        // a gang of 2x8 on one leaf in this fabric: both nodes under the same leaf
        assertThat(d.getAssignments().stream().map(a -> a.getLeaf()).distinct()).hasSize(1);
        assertThat(d.getAssignments().get(0).getGpus().get(0).getUuid()).startsWith("GPU-n");
        // the inventory entries came first; then the job router's first entry for the pool: its engine settings
        // (see StageOneSettingsTest), and the submit
        assertThat(setupEntries).isGreaterThanOrEqualTo(4);
        assertThat(d.getCause().getOffset()).isEqualTo(setupEntries + 1);
        final List<TestRecord<String, JournalEntry>> next = h.journal();
        assertThat(next.get(0).value().getPayload()).isInstanceOf(EngineSettings.class);
        assertThat(next.get(1).value().getPayload()).isInstanceOf(JobCommand.class);
        assertThat(d.getCause().getTimestamp().toEpochMilli()).isEqualTo(2_000);

        final List<TestRecord<String, NodeCommand>> cmds = h.commands.readRecordsToList();
        assertThat(cmds).hasSize(2);
        assertThat(cmds).allSatisfy(c -> {
            assertThat(c.value().getType()).isEqualTo(NodeCommandType.ALLOCATE);
            assertThat(c.key()).isEqualTo(c.value().getNodeId());
            assertThat(c.value().getDecisionId()).isEqualTo(d.getDecisionId());
            assertThat(c.value().getJobName()).isEqualTo("train");
            assertThat(c.value().getGangNodes()).hasSize(2);
        });
        assertThat(cmds.stream().map(c -> c.value().getRank()).collect(Collectors.toSet())).containsExactlyInAnyOrder(0, 1);
    }

    @Test
    void completionReleasesAndAQueuedJobIsThenPlaced() {
        h.jobs.pipeInput("big-1", Fixtures.submit("big-1", Fixtures.request("p1", 4, 8).build()), 2_000);
        h.jobs.pipeInput("big-2", Fixtures.submit("big-2", Fixtures.request("p1", 4, 8).build()), 2_100);
        assertThat(h.decisions().stream().map(d -> d.getJobId() + ":" + d.getOutcome()))
                .containsExactly("big-1:PLACED", "big-2:QUEUED");
        h.events.pipeInput("big-1", h.event("big-1", JobEventType.COMPLETED, 3_000), 3_000);
        assertThat(h.decisions().stream().map(d -> d.getJobId() + ":" + d.getOutcome()))
                .containsExactly("big-1:RELEASED", "big-2:PLACED");
        assertThat(h.commands.readValuesToList().stream().map(c -> c.getType().name()).distinct())
                .contains("ALLOCATE", "RELEASE");
    }

    @Test
    void invalidRequestsAreRejectedWithTheReason() {
        h.jobs.pipeInput("zero", Fixtures.submit("zero", Fixtures.request("p1", 1, 0).build()), 2_000);
        h.jobs.pipeInput("neg", Fixtures.submit("neg", Fixtures.request("p1", 1, -2).build()), 2_001);
        h.jobs.pipeInput("model", Fixtures.submit("model", Fixtures.request("p1", 1, 1)
                .setGpuModels(List.of("NVIDIA B200")).build()), 2_002);
        h.jobs.pipeInput("huge", Fixtures.submit("huge", Fixtures.request("p1", 9, 8).build()), 2_003);
        h.jobs.pipeInput("bad id!", Fixtures.submit("bad id!", Fixtures.request("p1", 1, 1).build()), 2_004);
        h.jobs.pipeInput("ok", Fixtures.submit("ok", Fixtures.request("p1", 1, 1).build()), 2_005);
        h.jobs.pipeInput("ok", Fixtures.submit("ok", "another-command", Fixtures.request("p1", 1, 2).build()), 2_006);
        h.jobs.pipeInput("ok", Fixtures.submit("ok", Fixtures.request("p1", 1, 1).build()), 2_007); // retried produce

        final Map<String, List<PlacementDecision>> byJob = h.decisions().stream()
                .collect(Collectors.groupingBy(PlacementDecision::getJobId));
        assertThat(code(byJob, "zero")).isEqualTo("REJECTED:INVALID_REQUEST");
        assertThat(byJob.get("zero").get(0).getMessage()).contains("0 GPUs");
        assertThat(code(byJob, "neg")).isEqualTo("REJECTED:INVALID_REQUEST");
        assertThat(code(byJob, "model")).isEqualTo("REJECTED:UNKNOWN_MODEL");
        assertThat(byJob.get("huge").get(0).getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
        assertThat(byJob.get("huge").get(0).getReasonCode()).isIn("GANG_LARGER_THAN_POOL", "EXCEEDS_POOL_CAPACITY");
        assertThat(code(byJob, "bad id!")).isEqualTo("REJECTED:INVALID_REQUEST");
        assertThat(byJob.get("bad id!").get(0).getMessage()).contains("malformed");
        assertThat(byJob.get("ok").stream().map(d -> d.getOutcome() + ":" + d.getReasonCode()))
                .containsExactly("PLACED:PLACED", "REJECTED:DUPLICATE_JOB");
    }

    @Test
    void undecodableRecordsGoToTheDlqWithTheirPositionAndProcessingGoesOn() {
        final byte[] garbage = "{\"not\": \"avro\"}".getBytes(StandardCharsets.UTF_8);
        h.rawJobs.pipeInput("job-x".getBytes(StandardCharsets.UTF_8), garbage, 2_000);
        h.rawGpu.pipeInput("n0".getBytes(StandardCharsets.UTF_8), new byte[] {0, 0, 0}, 2_001);
        h.jobs.pipeInput("job-y", Fixtures.submit("job-y", Fixtures.request("p1", 1, 1).build()), 2_002);

        final var dead = h.dlq.readRecordsToList();
        assertThat(dead).hasSize(2);
        assertThat(dead.get(0).value()).isEqualTo(garbage);
        assertThat(new String(dead.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("job-x");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.TOPIC)).isEqualTo("gpupool.jobs");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.PARTITION)).isEqualTo("0");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.OFFSET)).isEqualTo("0");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.ERROR_CLASS)).contains("RecordDecodeException");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.ERROR_MESSAGE)).contains("WRONG_MAGIC_BYTE");
        assertThat(DeadLetters.header(dead.get(1).headers(), DeadLetters.TOPIC)).isEqualTo("gpupool.telemetry.gpu");
        assertThat(h.decisions()).extracting(PlacementDecision::getJobId).containsExactly("job-y");
        assertThat(h.counter("gpupool.dlq.records", "topic", "gpupool.jobs")).isEqualTo(1);
    }

    @Test
    void cancelAndEventsAreRoutedByThePoolRememberedForTheJob() {
        h.jobs.pipeInput("c1", Fixtures.submit("c1", Fixtures.request("p1", 1, 2).build()), 2_000);
        h.jobs.pipeInput("c1", Fixtures.cancel("c1"), 2_100);
        h.jobs.pipeInput("ghost", Fixtures.cancel("ghost"), 2_200);
        assertThat(h.decisions().stream().map(d -> d.getOutcome().name())).containsExactly("PLACED", "CANCELLED");
        assertThat(h.commands.readValuesToList().stream().map(c -> c.getType().name()))
                .containsExactly("ALLOCATE", "EVICT");
        final var dead = h.dlq.readRecordsToList();
        assertThat(dead).hasSize(1);
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.ERROR_MESSAGE)).contains("never submitted");
        final List<JournalEntry> entries = h.journal().stream().map(TestRecord::value).toList();
        assertThat(entries).allSatisfy(e -> assertThat(e.getPool()).isEqualTo("p1"));
    }

    private static String code(final Map<String, List<PlacementDecision>> byJob, final String job) {
        assertThat(byJob).containsKey(job);
        assertThat(byJob.get(job)).hasSize(1);
        return byJob.get(job).get(0).getOutcome() + ":" + byJob.get(job).get(0).getReasonCode();
    }
}
