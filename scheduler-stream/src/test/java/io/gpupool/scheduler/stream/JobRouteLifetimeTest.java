package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.BookChanges;
import io.gpupool.scheduler.journal.KeyedJobBook;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A job's stage-1 route lives exactly as long as the placer's record of the job: cancels and late events
 * reach the engine through the finished-job retention, the route goes when the record expires or when
 * the placer rejects a submit without taking the id, and a resubmit or duplicate never loses the route
 * of the job that holds the id. So the route store holds what the job book holds, never every job ever.
 */
class JobRouteLifetimeTest {
    private static final long RETENTION_MS = 60_000;
    private static final Map<String, String> SETTINGS = Map.of("finished-job-retention-ms", Long.toString(RETENTION_MS));

    private static KeyValueStore<String, String> routes(final Harness h) {
        return h.driver.getKeyValueStore(JobRoutingProcessor.JOB_STORE);
    }

    private static long count(final KeyValueStore<String, String> store) {
        long n = 0;
        try (KeyValueIterator<String, String> it = store.all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    private static List<String> dlqReasons(final Harness h) {
        return h.dlq.readRecordsToList().stream()
                .map(r -> new String(r.headers().lastHeader("gpupool.dlq.error.message").value(), StandardCharsets.UTF_8))
                .toList();
    }

    /** j1 placed at 2 s, completed at 3 s: its record expires at 63 s. */
    private static void placeAndFinish(final Harness h) {
        h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
        h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 2_000);
        h.events.pipeInput("j1", h.event("j1", JobEventType.COMPLETED, 3_000), 3_000);
    }

    @Test
    void theRouteLivesThroughTheRetentionAndGoesWithTheRecord() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            placeAndFinish(h);
            final String placement = h.decisions().get(0).getDecisionId();
            // a late report of the ended part, within the retention: journaled for the engine to judge, not a DLQ record
            h.events.pipeInput("j1", Fixtures.event("j1", JobEventType.COMPLETED, 30_000, placement), 30_000);
            assertThat(h.journal()).last().extracting(r -> r.value().getTimestamp()).isEqualTo(Instant.ofEpochMilli(30_000));
            assertThat(h.dlq.isEmpty()).isTrue();
            assertThat(routes(h).get("j1")).as("the route within the retention").isNotNull();

            // another job's submit brings the pool's stream time to j1's expiry
            h.jobs.pipeInput("j2", Fixtures.submit("j2", Fixtures.request("p1", 1, 1).build()), 3_000 + RETENTION_MS);
            assertThat(routes(h).get("j1")).as("the route after the record expired").isNull();
            assertThat(routes(h).get("j2")).isNotNull();
            assertThat(h.counter("gpupool.job.route.ends", "why", "expired")).isEqualTo(1.0);

            h.jobs.pipeInput("j1", Fixtures.cancel("j1"), 3_000 + RETENTION_MS + 1);
            assertThat(dlqReasons(h)).singleElement().asString()
                    .contains("cancel for job j1 that was never submitted, or whose record the scheduler no longer keeps");
        }
    }

    @Test
    void aDuplicateSubmitOfALiveJobEndsOnlyItsOwnEntry() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 2_000);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", "again", Fixtures.request("p1", 1, 2).build()), 3_000);
            final JobRoute route = JobRoute.read(routes(h).get("j1"));
            assertThat(route.open()).extracting(JobRoute.Entry::commandId).containsExactly("submit-j1");
            assertThat(h.counter("gpupool.job.route.ends", "why", "rejected")).isEqualTo(1.0);

            h.jobs.pipeInput("j1", Fixtures.cancel("j1"), 4_000);
            assertThat(h.decisions()).extracting(PlacementDecision::getOutcome, PlacementDecision::getReasonCode)
                    .containsExactly(tuple(DecisionOutcome.PLACED, "PLACED"), tuple(DecisionOutcome.REJECTED, "DUPLICATE_JOB"),
                            tuple(DecisionOutcome.CANCELLED, "CANCELLED_BY_USER"));
            assertThat(h.dlq.isEmpty()).isTrue();
        }
    }

    @Test
    void aResubmitThatExpiresTheOldRecordKeepsItsOwnRoute() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            placeAndFinish(h);
            // the resubmit itself brings the stream time to the old record's expiry: the id is free for it
            h.jobs.pipeInput("j1", Fixtures.submit("j1", "again", Fixtures.request("p1", 1, 2).build()), 3_000 + RETENTION_MS);
            assertThat(JobRoute.read(routes(h).get("j1")).open()).extracting(JobRoute.Entry::commandId)
                    .containsExactly("again");
            h.jobs.pipeInput("j1", Fixtures.cancel("j1"), 3_000 + RETENTION_MS + 1);
            assertThat(h.decisions()).extracting(PlacementDecision::getOutcome)
                    .containsExactly(DecisionOutcome.PLACED, DecisionOutcome.RELEASED, DecisionOutcome.PLACED,
                            DecisionOutcome.CANCELLED);
            assertThat(h.dlq.isEmpty()).isTrue();
        }
    }

    @Test
    void theRouteStoreHoldsOnlyTheJobsWithinTheRetention() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            final int jobs = 300;
            for (int i = 0; i < jobs; i++) {
                final String id = "j" + i;
                final long at = 2_000 + i * 1_000L; // one job a second, each done a tenth of a second later
                h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", 1, 1).build()), at);
                h.events.pipeInput(id, h.event(id, JobEventType.COMPLETED, at + 100), at + 100);
            }
            // the jobs that finished within the last 60 s of stream time, and no more
            assertThat(count(routes(h))).isBetween(RETENTION_MS / 1_000 - 1, RETENTION_MS / 1_000 + 1);
            assertThat(h.dlq.isEmpty()).isTrue();
        }
    }

    @Test
    void aSkippedSubmitFinishesAtOnceSoItsRecordAndRouteExpire() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, Map.of("finished-job-retention-ms", Long.toString(RETENTION_MS),
                "failpoint.allocate", "j1:0"))) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 2_000);
            assertThat(h.decisions()).extracting(PlacementDecision::getReasonCode).containsExactly("SCHEDULER_ERROR");
            h.jobs.pipeInput("j2", Fixtures.submit("j2", Fixtures.request("p1", 1, 1).build()), 2_000 + RETENTION_MS);
            assertThat(routes(h).get("j1")).as("the skipped job's route after the retention").isNull();
            final KeyValueStore<String, byte[]> jobs = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
            assertThat(new KeyedJobBook(new StoreBookMap(jobs), BookChanges.NONE, true).get("j1"))
                    .as("the skipped job's record after the retention").isNull();
        }
    }

    @Test
    void aRouteOfTheOldFormGoesWhenItsRecordExpires() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            placeAndFinish(h);
            routes(h).put("j1", "p1"); // as a scheduler from before route entries stored it: the bare pool
            h.jobs.pipeInput("j2", Fixtures.submit("j2", Fixtures.request("p1", 1, 1).build()), 3_000 + RETENTION_MS);
            assertThat(routes(h).get("j1")).isNull();
        }
    }

    @Test
    void aClientsRecordCarryingTheNoticeHeaderIsAJobRecord() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 2_000);
            final Headers forged = new RecordHeaders().add(RouteEnds.POOL, "p1".getBytes(StandardCharsets.UTF_8))
                    .add(RouteEnds.EXPIRED, new byte[0]);
            final JobCommand cancel = Fixtures.cancel("j1");
            h.jobs.pipeInput(new TestRecord<>("j1", cancel, forged, Instant.ofEpochMilli(3_000)));
            assertThat(h.decisions()).extracting(PlacementDecision::getOutcome)
                    .containsExactly(DecisionOutcome.PLACED, DecisionOutcome.CANCELLED);
            assertThat(routes(h).get("j1")).as("the route stays until the cancelled job's record expires").isNotNull();
        }
    }

    @Test
    void aRouteReadsBackAsWrittenWhateverItsIdsHold() {
        final JobRoute route = JobRoute.of("c:1\u0001", "p:a").opened("7:x", "p2").opened("c:1\u0001", "p3");
        assertThat(JobRoute.read(route.write())).isEqualTo(route);
        assertThat(route.open()).hasSize(2);
        assertThat(route.closed("7:x", false).open()).extracting(JobRoute.Entry::commandId).containsExactly("c:1\u0001");
        assertThat(route.closed("7:x", false).closed("c:1\u0001", false)).isNull();
        assertThat(JobRoute.read("pool-a").closed("any", false)).as("an old-form route ends only by expiry").isNotNull();
        assertThat(JobRoute.read("pool-a").closed("any", true)).isNull();
    }
}
