package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.BookChanges;
import io.gpupool.scheduler.journal.JobBookTopic;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.KeyedJobBook;
import io.gpupool.scheduler.journal.SnapshotTopic;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A finished job stays in the placer's job book and decision history for the retention of its pool's
 * stream time, then goes (a tombstone on the snapshot topic says when): its id is DUPLICATE_JOB before,
 * free after; the offline replay and a restore from the stores agree with the placer across the expiry.
 */
class FinishedJobRetentionTest {
    private static final long RETENTION_MS = 60_000;
    private static final Map<String, String> SETTINGS = Map.of("finished-job-retention-ms", Long.toString(RETENTION_MS));

    /** j1 placed at 2 s, completed at 3 s (so it expires at 63 s); resubmitted at 62.999 s, then at 63 s. */
    private static void finishAndResubmit(final Harness h) {
        h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
        h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 1).build()), 2_000);
        h.events.pipeInput("j1", h.event("j1", JobEventType.COMPLETED, 3_000), 3_000);
        h.jobs.pipeInput("j1", Fixtures.submit("j1", "again", Fixtures.request("p1", 1, 2).build()), 3_000 + RETENTION_MS - 1);
    }

    @Test
    void aFinishedJobsRecordAndHistoryStayForTheRetentionThenGo() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            final KeyValueStore<String, byte[]> jobs = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
            final KeyValueStore<String, byte[]> history = h.driver.getKeyValueStore(DecisionHistory.STORE);
            finishAndResubmit(h);
            assertThat(h.decisions()).extracting(PlacementDecision::getOutcome, PlacementDecision::getReasonCode)
                    .endsWith(tuple(DecisionOutcome.REJECTED, "DUPLICATE_JOB"));
            assertThat(book(jobs).get("j1")).as("the book record within the retention").isNotNull();
            assertThat(book(jobs).get("j1").request()).as("finished: kept slim, no node command needs its request")
                    .isNull();
            assertThat(DecisionHistory.of("j1", h.engines, history::get)).as("the history within the retention").isNotEmpty();

            // another job's submit brings the pool's stream time to the expiry
            h.jobs.pipeInput("j2", Fixtures.submit("j2", Fixtures.request("p1", 1, 1).build()), 3_000 + RETENTION_MS);
            assertThat(book(jobs).get("j1")).as("the book record after the retention").isNull();
            assertThat(DecisionHistory.of("j1", h.engines, history::get)).as("the history after the retention").isEmpty();
            assertThat(book(jobs).get("j2")).isNotNull();

            final List<TestRecord<String, byte[]>> book = new ArrayList<>();
            h.driver.createOutputTopic(SnapshotTopic.name(h.topics.journal()), new StringDeserializer(),
                    new ByteArrayDeserializer()).readRecordsToList().stream()
                    .filter(r -> r.key().equals(JobBookTopic.key(0, "j1"))).forEach(book::add);
            assertThat(book).as("taken, finished, expired").hasSize(3);
            final byte[] taken = book.get(0).value();
            assertThat(book.get(1).value()).as("the finished record on the snapshot topic keeps the request, for an"
                    + " audit from a snapshot taken while the job was live")
                    .endsWith(Arrays.copyOfRange(taken, 4 + 4 + 2 + "j1".length(), taken.length));
            assertThat(book.get(2).value()).as("a tombstone").isNull();
            final Header at = book.get(2).headers().lastHeader(JobBookTopic.EXPIRED_AT);
            assertThat(ByteBuffer.wrap(at.value()).getLong()).as("the journal offset of j2's submit")
                    .isEqualTo(h.journal().size() - 1);
        }
    }

    @Test
    void theIdIsFreeAgainAtTheRetentionAndTheReplayAgrees() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            finishAndResubmit(h);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", "third", Fixtures.request("p1", 1, 4).build()), 3_000 + RETENTION_MS);
            final List<PlacementDecision> recorded = h.decisions();
            final PlacementDecision last = recorded.get(recorded.size() - 1);
            assertThat(last.getJobId()).isEqualTo("j1");
            assertThat(last.getOutcome()).as("the id was taken again").isEqualTo(DecisionOutcome.PLACED);

            OfflineReplay.decidesAsRecorded(h.journal(), recorded, Harness.configs(SETTINGS));
        }
    }

    @Test
    void aRestoreReappliesTheTailAsTheBookWasThenNotAsItIsNow() throws Exception {
        // no snapshot after the first: the tail holds j1's first submit, its DUPLICATE, the expiry and the reuse
        try (Harness h = new Harness(1_000, 600_000, SETTINGS)) {
            finishAndResubmit(h);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", "third", Fixtures.request("p1", 1, 4).build()), 3_000 + RETENTION_MS);
            final KeyValueStore<String, byte[]> jobs = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
            assertThat(book(jobs).get("j1").commandId()).isEqualTo("third");
            assertThat(keys(jobs)).as("the first j1, expired, moved out of the way of the third").contains("#expired#j1");
            final JournalApplier applier = new JournalApplier(new KeyedJobBook(new StoreBookMap(jobs), BookChanges.NONE, true));
            final List<EngineStore.Stored> stored = h.storedEngines();
            assertThat(stored).singleElement().satisfies(s -> assertThat(s.tail()).hasSizeGreaterThan(4));
            final PoolEngine restored = EngineRestorer.restore(stored.get(0),
                    Harness.configs(SETTINGS).apply("p1"), applier,
                    h.codecs.deserializer(JournalEntry.class));
            assertThat(restored.snapshot()).isEqualTo(h.engines.pool("p1").orElseThrow().read(PoolEngine::snapshot));
        }
    }

    @Test
    void expiredRecordsKeptForARestoreGoOnceNoTailReachesBackToThem() throws Exception {
        final int snapshotEvery = 20;
        try (Harness h = new Harness(snapshotEvery, 600_000, SETTINGS)) {
            finishAndResubmit(h);
            h.jobs.pipeInput("j2", Fixtures.submit("j2", Fixtures.request("p1", 1, 1).build()), 3_000 + RETENTION_MS);
            final KeyValueStore<String, byte[]> jobs = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
            assertThat(h.journal()).as("no snapshot yet").hasSizeLessThan(snapshotEvery);
            // kept under its own id, marked expired, until no restore can re-apply an entry from before the expiry
            assertThat(book(jobs).get("j1")).isNull();
            assertThat(keys(jobs)).contains("j1").anyMatch(k -> k.startsWith("#purgeid#") && k.endsWith("#j1"));
            for (int i = 0; i < snapshotEvery; i++) {
                h.jobs.pipeInput("k" + i, Fixtures.cancel("j2"), 3_000 + RETENTION_MS + i);
            }
            assertThat(keys(jobs)).doesNotContain("j1").noneMatch(k -> k.startsWith("#expired#") || k.startsWith("#purge"));
        }
    }

    private static KeyedJobBook book(final KeyValueStore<String, byte[]> jobs) {
        return new KeyedJobBook(new StoreBookMap(jobs), BookChanges.NONE, true);
    }

    private static List<String> keys(final KeyValueStore<String, byte[]> store) {
        final List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = store.all()) {
            while (it.hasNext()) {
                final KeyValue<String, byte[]> kv = it.next();
                keys.add(kv.key);
            }
        }
        return keys;
    }
}
