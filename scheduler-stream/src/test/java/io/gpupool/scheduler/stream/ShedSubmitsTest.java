package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.JournalApplier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * While the placer's backlog is over the limit, a new job's submit is answered at once (REJECTED OVERLOADED,
 * journaled so the audit replays it) and leaves nothing behind: no route, no record of the id, no history, so
 * the same id can be submitted again once the backlog is down. A known job's submits and every job event pass.
 */
class ShedSubmitsTest {
    private static final long OVER = 5_000;

    private static List<String> dlqReasons(final Harness h) {
        return h.dlq.readRecordsToList().stream()
                .map(r -> new String(r.headers().lastHeader("gpupool.dlq.error.message").value(), StandardCharsets.UTF_8))
                .toList();
    }

    @Test
    void aNewSubmitIsShedWhileTheBacklogIsOverTheLimitAndItsIdStaysFree() throws Exception {
        try (Harness h = new Harness(1_000, 600_000)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            h.backlog.measured(Map.of(0, OVER));
            h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 2_000);

            final List<PlacementDecision> decided = new ArrayList<>(h.decisions());
            assertThat(decided).extracting(PlacementDecision::getJobId, PlacementDecision::getOutcome, PlacementDecision::getReasonCode)
                    .containsExactly(tuple("j1", DecisionOutcome.REJECTED, JournalApplier.OVERLOADED));
            assertThat(decided.get(0).getMessage()).contains("journal partition 0 held 5000 entries not yet applied",
                    "limit of 1000", "submit it again later");
            final List<TestRecord<String, JournalEntry>> journal = new ArrayList<>(h.journal());
            assertThat(journal).last().satisfies(e -> {
                assertThat(e.value().getShed().getBacklogEntries()).isEqualTo(OVER);
                assertThat(e.value().getShed().getLimitEntries()).isEqualTo(1_000);
            });
            assertThat(h.counter("gpupool.requests.shed", "pool", "p1")).isEqualTo(1.0);
            final KeyValueStore<String, String> routes = h.driver.getKeyValueStore(JobRoutingProcessor.JOB_STORE);
            assertThat(routes.get("j1")).as("no route for a shed job").isNull();
            final KeyValueStore<String, byte[]> book = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
            assertThat(book.get("j1")).as("its id is not taken").isNull();
            assertThat(h.engines.pool("p1").orElseThrow().history().get("j1")).as("no history kept for it").isNull();

            // a cancel of it finds no job, as for any job never submitted
            h.jobs.pipeInput("j1", Fixtures.cancel("j1"), 2_500);
            assertThat(dlqReasons(h)).singleElement().asString().contains("cancel for job j1 that was never submitted");

            // the backlog down: the same id, submitted again, is placed
            h.backlog.measured(Map.of(0, 10L));
            h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 3_000);
            final List<PlacementDecision> again = h.decisions();
            assertThat(again).extracting(PlacementDecision::getJobId, PlacementDecision::getOutcome)
                    .containsExactly(tuple("j1", DecisionOutcome.PLACED));
            decided.addAll(again);
            journal.addAll(h.journal());
            OfflineReplay.decidesAsRecorded(journal, decided, Harness.configs(Map.of()));
        }
    }

    @Test
    void aKnownJobsSubmitsAndEveryJobEventPassWhileShedding() throws Exception {
        try (Harness h = new Harness(1_000, 600_000)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 2_000);
            assertThat(h.decisions()).extracting(PlacementDecision::getOutcome).containsExactly(DecisionOutcome.PLACED);

            h.backlog.measured(Map.of(0, OVER));
            // the same command produced again: ignored, as always; another submit under the id: a duplicate, not shed
            h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 2_100);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", "another-command", Fixtures.request("p1", 1, 1).build()), 2_200);
            h.events.pipeInput("j1", h.event("j1", JobEventType.COMPLETED, 2_300), 2_300);
            assertThat(h.decisions()).extracting(PlacementDecision::getJobId, PlacementDecision::getOutcome,
                            PlacementDecision::getReasonCode)
                    .containsExactly(tuple("j1", DecisionOutcome.REJECTED, "DUPLICATE_JOB"),
                            tuple("j1", DecisionOutcome.RELEASED, "COMPLETED"));
            assertThat(h.counter("gpupool.requests.shed", "pool", "p1")).isZero();
        }
    }

    @Test
    void anInvalidRequestIsToldWhatIsWrongRatherThanToComeBackLater() throws Exception {
        try (Harness h = new Harness(1_000, 600_000)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            h.backlog.measured(Map.of(0, OVER));
            h.jobs.pipeInput("bad", Fixtures.submit("bad", Fixtures.request("p1", 1, 0).build()), 2_000);
            assertThat(h.decisions()).extracting(PlacementDecision::getOutcome, PlacementDecision::getReasonCode)
                    .containsExactly(tuple(DecisionOutcome.REJECTED, "INVALID_REQUEST"));
            assertThat(h.counter("gpupool.requests.shed", "pool", "p1")).as("stage 1 shed it; the placer's answer is the lasting one")
                    .isEqualTo(1.0);
        }
    }

    @Test
    void nothingIsShedOnAStaleMeasurementOrWithoutALimit() {
        final long[] now = {0};
        final JournalBacklog limited = new JournalBacklog(1_000, () -> now[0]);
        limited.measured(Map.of(0, OVER, 1, 0L));
        final String pool = poolOnPartition(0, 2);
        assertThat(limited.shedding(pool)).isNotNull();
        assertThat(limited.shedding(poolOnPartition(1, 2))).as("another partition's backlog is its own").isNull();
        now[0] = JournalBacklog.STALE_MS + 1;
        assertThat(limited.shedding(pool)).as("a measurement too old to act on").isNull();
        assertThat(limited.entries(0)).isEqualTo(-1);

        final JournalBacklog never = new JournalBacklog(0, () -> 0L);
        never.measured(Map.of(0, Long.MAX_VALUE));
        assertThat(never.shedding(pool)).isNull();
    }

    /** A pool name whose journal partition, of {@code partitions}, is {@code partition}. */
    private static String poolOnPartition(final int partition, final int partitions) {
        for (int i = 0; ; i++) {
            final String pool = "pool-" + i;
            if (ByJobId.partition(pool.getBytes(StandardCharsets.UTF_8), partitions) == partition) {
                return pool;
            }
        }
    }
}
