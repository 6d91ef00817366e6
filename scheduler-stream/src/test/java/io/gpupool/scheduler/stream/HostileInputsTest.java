package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.JobView;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stage 1 and 2 against records written by others: producers with their own keys, clocks and
 * partitioners, sinks that report late or lie, tombstones. Nothing is lost or invented, and no
 * client can move the pool's clock or end someone else's job.
 */
class HostileInputsTest {
    private Harness h;
    private long now;

    @BeforeEach
    void start() throws Exception {
        h = new Harness(1000, 10_000);
        now = System.currentTimeMillis();
        for (int n = 0; n < 2; n++) {
            h.inventory.pipeInput("n" + n, Fixtures.node("p1", "n" + n, "leaf-a", 8), now);
            h.gpu.pipeInput("n" + n, Fixtures.gpus("n" + n, 8, 10, now), now);
        }
        h.journal();
        h.decisions();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private PlacementDecision submit(final String id, final int gpus) {
        h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", 1, gpus).build()), now);
        final List<PlacementDecision> out = h.decisions();
        assertThat(out).isNotEmpty();
        return out.get(0);
    }

    @Test
    void aLateEventOfAnEarlierPlacementChangesNothing() {
        final PlacementDecision first = submit("j", 8);
        assertThat(first.getOutcome()).isEqualTo(DecisionOutcome.PLACED);
        h.jobs.pipeInput("j", Fixtures.cancel("j"), now); // EVICT of the first placement
        assertThat(h.decisions()).extracting(PlacementDecision::getOutcome).containsExactly(DecisionOutcome.CANCELLED);
        // resubmitting is a duplicate id; place a second job on the same GPUs instead and let j's late events come
        final PlacementDecision other = submit("k", 8);
        assertThat(other.getOutcome()).isEqualTo(DecisionOutcome.PLACED);
        h.events.pipeInput("j", Fixtures.event("j", JobEventType.EVICTED, now, first.getDecisionId()), now);
        h.events.pipeInput("j", Fixtures.event("j", JobEventType.COMPLETED, now, first.getDecisionId()), now);
        assertThat(h.decisions()).isEmpty();
        assertThat(h.commands.readValuesToList()).noneMatch(c -> c.getJobId().equals("k")
                && c.getType() != NodeCommandType.ALLOCATE);
        assertThat(h.dlq.readRecordsToList()).isEmpty();
        assertThat(h.counter("gpupool.job.events.disregarded", "kind", "STALE")).isEqualTo(2);
    }

    @Test
    void aForgedCompletionIsRefusedAndDeadLettered() {
        final PlacementDecision placed = submit("victim", 4);
        h.commands.readValuesToList();
        h.events.pipeInput("victim", Fixtures.event("victim", JobEventType.COMPLETED, now, "p1-999"), now);
        final JobEvent wrongNode = JobEvent.newBuilder(Fixtures.event("victim", JobEventType.COMPLETED, now,
                placed.getDecisionId())).setNodeId("not-a-node").build();
        h.events.pipeInput("victim", wrongNode, now);
        assertThat(h.decisions()).isEmpty();
        assertThat(h.commands.readValuesToList()).isEmpty();
        final var dead = h.dlq.readRecordsToList();
        assertThat(dead).hasSize(2);
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.ERROR_MESSAGE))
                .contains("placement p1-999 was never made for job victim");
        assertThat(DeadLetters.header(dead.get(1).headers(), DeadLetters.ERROR_MESSAGE))
                .contains("node not-a-node is not part of placement " + placed.getDecisionId());
        // explain shows them: the job's refused count and the last reason
        final JobView view = h.engines.pool("p1").orElseThrow()
                .read(e -> e.job("victim").orElseThrow());
        assertThat(view.refusedEvents()).isEqualTo(2);
        assertThat(view.lastRefusal()).contains("not-a-node");
        assertThat(view.placementId()).isEqualTo(placed.getDecisionId());
        // the real sink's report still counts
        h.events.pipeInput("victim", Fixtures.event("victim", JobEventType.COMPLETED, now, placed.getDecisionId()), now);
        assertThat(h.decisions()).extracting(PlacementDecision::getOutcome).containsExactly(DecisionOutcome.RELEASED);
    }

    @Test
    void jobsAreRoutedByTheIdInTheirPayloadWhateverTheKey() {
        final TestInputTopic<String, JobCommand> keyless = h.driver.createInputTopic(h.topics.jobs(),
                new StringSerializer(), h.codecs.serializer());
        keyless.pipeInput((String) null, Fixtures.submit("nokey", Fixtures.request("p1", 1, 2).build()), now);
        final PlacementDecision placed = h.decisions().get(0);
        assertThat(placed.getOutcome()).isEqualTo(DecisionOutcome.PLACED);
        keyless.pipeInput((String) null, Fixtures.cancel("nokey"), now);
        assertThat(h.decisions()).extracting(PlacementDecision::getOutcome).containsExactly(DecisionOutcome.CANCELLED);
        // a job's events under another key (or none) reach it too
        final TestInputTopic<String, JobEvent> events = h.driver.createInputTopic(h.topics.jobEvents(),
                new StringSerializer(), h.codecs.serializer());
        final PlacementDecision second = submit("other", 2);
        events.pipeInput("some-other-key", Fixtures.event("other", JobEventType.COMPLETED, now,
                second.getDecisionId()), now);
        assertThat(h.decisions()).extracting(PlacementDecision::getOutcome).containsExactly(DecisionOutcome.RELEASED);
        assertThat(h.dlq.readRecordsToList()).isEmpty();
    }

    @Test
    void theRouteOutlivesTheJobsFirstEndSoLateReportsAreJudgedNotDeadLettered() {
        final PlacementDecision placed = submit("g", 8);
        h.events.pipeInput("g", Fixtures.event("g", JobEventType.COMPLETED, now, placed.getDecisionId()), now);
        h.events.pipeInput("g", Fixtures.event("g", JobEventType.COMPLETED, now, placed.getDecisionId()), now);
        h.events.pipeInput("g", Fixtures.event("g", JobEventType.RELEASED, now, placed.getDecisionId()), now);
        assertThat(h.decisions()).extracting(PlacementDecision::getOutcome).containsExactly(DecisionOutcome.RELEASED);
        assertThat(h.dlq.readRecordsToList()).isEmpty();
    }

    @Test
    void aClientsFastClockMovesNoPoolClockAndEvictsNothing() {
        final PlacementDecision running = submit("running", 4);
        h.events.pipeInput("running", Fixtures.event("running", JobEventType.STARTED, now, running.getDecisionId()), now);
        h.journal();
        final long[] ahead = {5 * 60_000L, 50 * 60_000L, 365L * 24 * 3_600_000L};
        for (int i = 0; i < ahead.length; i++) {
            final String id = "fast-" + i;
            h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", 1, 1).build()), now + ahead[i]);
            final List<TestRecord<String, JournalEntry>> journaled = h.journal();
            final JournalEntry e = journaled.stream().map(TestRecord::value)
                    .filter(v -> v.getPayload() instanceof JobCommand).findFirst().orElseThrow();
            assertThat(e.getTimestamp().toEpochMilli()).as("journaled at the scheduler's clock, not the client's")
                    .isLessThanOrEqualTo(System.currentTimeMillis() + SchedulerTopology.DEFAULT_MAX_CLOCK_AHEAD_MS);
            assertThat(e.getSource().getTimestamp().toEpochMilli()).as("the client's time kept as evidence")
                    .isEqualTo(now + ahead[i]);
            // the clock ticks that follow are at the pool's time too, and nothing is judged stale
            assertThat(journaled).allSatisfy(r -> assertThat(r.timestamp())
                    .isLessThanOrEqualTo(System.currentTimeMillis() + SchedulerTopology.DEFAULT_MAX_CLOCK_AHEAD_MS));
        }
        // healthy nodes keep reporting; more time passes in the scheduler's own terms
        for (int n = 0; n < 2; n++) {
            h.gpu.pipeInput("n" + n, Fixtures.gpus("n" + n, 8, 10, now + 1_000), now + 1_000);
        }
        final List<PlacementDecision> decided = h.decisions();
        assertThat(decided).extracting(PlacementDecision::getOutcome).containsOnly(DecisionOutcome.PLACED);
        assertThat(h.commands.readValuesToList()).extracting(NodeCommand::getType).doesNotContain(NodeCommandType.EVICT);
        assertThat(h.counter("gpupool.clock.clamped", "topic", h.topics.jobs(), "why", "ahead")).isEqualTo(3);
    }

    @Test
    void tombstonesAreDeadLetteredOrADeliberateRemovalNeverSilent() {
        h.rawGpu.pipeInput("n0".getBytes(StandardCharsets.UTF_8), null, now);
        final TestInputTopic<byte[], byte[]> rawInventory = h.driver.createInputTopic(h.topics.inventory(),
                new ByteArraySerializer(),
                new ByteArraySerializer());
        rawInventory.pipeInput("ghost".getBytes(StandardCharsets.UTF_8), null, now);
        h.rawJobs.pipeInput("job".getBytes(StandardCharsets.UTF_8), null, now);
        final var dead = h.dlq.readRecordsToList();
        assertThat(dead).extracting(r -> DeadLetters.header(r.headers(), DeadLetters.TOPIC))
                .containsExactly(h.topics.telemetryGpu(), h.topics.inventory(), h.topics.jobs());
        assertThat(DeadLetters.header(dead.get(1).headers(), DeadLetters.ERROR_MESSAGE)).contains("ghost");

        final PlacementDecision placed = submit("on-n", 8);
        final String node = placed.getAssignments().get(0).getNodeId();
        h.journal();
        rawInventory.pipeInput(node.getBytes(StandardCharsets.UTF_8), null, now);
        assertThat(h.journal()).extracting(TestRecord::value).anySatisfy(e -> {
            assertThat(e.getPayload()).isInstanceOf(InventoryChange.class);
            assertThat(((InventoryChange) e.getPayload()).getRemoved()).isTrue();
        });
        assertThat(h.decisions()).extracting(PlacementDecision::getOutcome).contains(DecisionOutcome.EVICTED);
        assertThat(h.counter("gpupool.nodes.removed", "pool", "p1")).isEqualTo(1);
    }

    @Test
    void aConstraintValueTheSchedulerDoesNotKnowIsRejectedNotDropped() {
        // what a newer client's enum symbol becomes in this scheduler's reader schema: the enum default, UNKNOWN
        h.jobs.pipeInput("net", Fixtures.submit("net", Fixtures.request("p1", 1, 1)
                .setNetwork(io.gpupool.avro.NetworkRequirement.UNKNOWN).build()), now);
        h.jobs.pipeInput("topo", Fixtures.submit("topo", Fixtures.request("p1", 1, 1)
                .setTopology(io.gpupool.avro.TopologyScope.UNKNOWN).build()), now);
        h.jobs.pipeInput("class", Fixtures.submit("class", Fixtures.request("p1", 1, 1)
                .setPriorityClass("platinum").build()), now);
        final List<PlacementDecision> out = h.decisions();
        assertThat(out).extracting(d -> d.getJobId() + ":" + d.getOutcome() + ":" + d.getReasonCode())
                .containsExactly("net:REJECTED:UNKNOWN_VALUE", "topo:REJECTED:UNKNOWN_VALUE", "class:REJECTED:UNKNOWN_VALUE");
        assertThat(out.get(0).getMessage()).contains("network").contains("ANY, INFINIBAND, ROCE");
        assertThat(out.get(2).getMessage()).contains("platinum");
    }

    @Test
    void anUndecodableJobRecordIsDeadLetteredNamingItsTopicPartitionAndOffset() {
        h.rawJobs.pipeInput("job".getBytes(StandardCharsets.UTF_8), "{\"jobId\": \"plain json\"}".getBytes(StandardCharsets.UTF_8), now);
        h.rawJobs.pipeInput("job".getBytes(StandardCharsets.UTF_8), new byte[] {0, 0, 0, 0, 1, 7}, now);
        final var dead = h.dlq.readRecordsToList();
        assertThat(dead).hasSize(2);
        for (int i = 0; i < 2; i++) {
            final String message = DeadLetters.header(dead.get(i).headers(), DeadLetters.ERROR_MESSAGE);
            // the position headers and the message agree: the record the user wrote, not "?@?"
            assertThat(message).contains(h.topics.jobs() + "-" + DeadLetters.header(dead.get(i).headers(), DeadLetters.PARTITION)
                    + "@" + DeadLetters.header(dead.get(i).headers(), DeadLetters.OFFSET)).doesNotContain("?");
        }
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.ERROR_MESSAGE))
                .contains(h.topics.jobs() + "-0@").contains("WRONG_MAGIC_BYTE");
    }

    @Test
    void originHeadersAClientWritesAreDroppedAndTheRealPositionIsJournaled() {
        final Headers forged = new RecordHeaders()
                .add(Origin.HEADER, new byte[] {1, 0, 2, 2, 3, 'x', 'y', 'z'}) // partition 1, offset 1 of topic xyz
                .add(Origin.TOPIC, utf8("elsewhere")).add(Origin.PARTITION, utf8("9")).add(Origin.OFFSET, utf8("99"))
                .add("trace", utf8("t-1"));
        h.jobs.pipeInput(new TestRecord<>("j", Fixtures.submit("j", Fixtures.request("p1", 1, 1).build()), forged,
                java.time.Instant.ofEpochMilli(now)));
        final List<JournalEntry> journaled = h.journal().stream().map(TestRecord::value)
                .filter(e -> e.getPayload() instanceof JobCommand).toList();
        assertThat(journaled).hasSize(1);
        assertThat(journaled.get(0).getSource().getTopic()).isEqualTo(h.topics.jobs());
        assertThat(journaled.get(0).getSource().getPartition()).isZero();
        assertThat(journaled.get(0).getSource().getOffset()).isZero();
        assertThat(h.decisions()).extracting(PlacementDecision::getOutcome).containsExactly(DecisionOutcome.PLACED);
        // and a dead letter of a forged-header record keeps the user's own headers, none of the origin ones
        h.jobs.pipeInput(new TestRecord<>("user-key", Fixtures.cancel("never-submitted"), forged,
                java.time.Instant.ofEpochMilli(now)));
        final var dead = h.dlq.readRecordsToList();
        assertThat(dead).hasSize(1);
        assertThat(new String(dead.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("user-key");
        assertThat(Origin.isCopy(dead.get(0).headers())).isFalse();
        assertThat(new String(dead.get(0).headers().lastHeader("trace").value(), StandardCharsets.UTF_8)).isEqualTo("t-1");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.OFFSET)).isEqualTo("1");
    }

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aCancelNamingAMalformedIdIsDeadLetteredNotDropped() {
        h.jobs.pipeInput("bad id with spaces", Fixtures.cancel("bad id with spaces"), now);
        final var dead = h.dlq.readRecordsToList();
        assertThat(dead).hasSize(1);
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.ERROR_MESSAGE)).contains("malformed job id");
        assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.TOPIC)).isEqualTo(h.topics.jobs());
        // a dead letter keeps the key its producer wrote, not the job id it was routed by
        h.jobs.pipeInput("user-key", Fixtures.cancel("never-submitted"), now);
        final var unknown = h.dlq.readRecordsToList();
        assertThat(unknown).hasSize(1);
        assertThat(new String(unknown.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("user-key");
        assertThat(DeadLetters.header(unknown.get(0).headers(), DeadLetters.ERROR_MESSAGE)).contains("never submitted");
        assertThat(Origin.isCopy(unknown.get(0).headers())).as("no internal header leaks").isFalse();
    }
}
