package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.BookChanges;
import io.gpupool.scheduler.journal.KeyedJobBook;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.SkippedEntry;
import java.util.List;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Applying a journal entry is all or nothing: when the engine throws half-way through placing a gang, the
 * placer's engine is the one it had before the entry (the gang's first part gave its GPUs back), the entry is
 * skipped (REJECTED for its submitter, dead-lettered once, counted), and the live engine equals the one
 * restored from the stores and the one an offline replay of the journal builds, with the same decisions.
 */
class HalfAppliedEntryTest {

    @Test
    void anEntryTheEngineThrowsOnLeavesThePoolAsItWasAndIsSkippedTheSameWayByRestoreAndReplay() throws Exception {
        try (Harness h = new Harness(3, 600_000, HalfAppliedGang.SETTINGS)) {
            final HalfAppliedGang.Run run = HalfAppliedGang.run(h);

            assertThat(run.decisions()).filteredOn(d -> d.getJobId().equals("gang")).singleElement().satisfies(d -> {
                assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
                assertThat(d.getReasonCode()).isEqualTo(SkippedEntry.CODE);
                assertThat(d.getMessage()).contains("IllegalStateException").contains("skipped");
            });
            // big needs 6 GPUs on each node: only there if the gang's half-placement was undone
            assertThat(run.decisions()).filteredOn(d -> d.getJobId().equals("big")).first()
                    .extracting(PlacementDecision::getOutcome).isEqualTo(DecisionOutcome.PLACED);
            assertThat(run.commands()).noneMatch(c -> c.getJobId().equals("gang"));

            final List<TestRecord<byte[], byte[]>> dead = h.dlq.readRecordsToList();
            assertThat(dead).singleElement().satisfies(r -> {
                assertThat(DeadLetters.header(r.headers(), DeadLetters.ERROR_CLASS)).isEqualTo(
                        IllegalStateException.class.getName());
                assertThat(DeadLetters.header(r.headers(), DeadLetters.ERROR_MESSAGE)).contains("skipped")
                        .contains("failpoint");
            });
            assertThat(h.counter("gpupool.journal.skipped", "pool", "p1")).isEqualTo(1.0);

            final byte[] live = h.engines.pool("p1").orElseThrow().read(PoolEngine::snapshot);
            assertThat(restored(h)).isEqualTo(live);

            final JournalReplay replay = new JournalReplay(Harness.configs(HalfAppliedGang.SETTINGS));
            for (int offset = 0; offset < run.journal().size(); offset++) {
                replay.apply(run.journal().get(offset), 0, offset);
            }
            assertThat(replay.engines().get("p1").snapshot()).isEqualTo(live);
            assertThat(replay.decisions()).hasSameSizeAs(run.decisions());
            for (int i = 0; i < run.decisions().size(); i++) {
                assertThat(RestoreAndReplayTest.bytes(replay.decisions().get(i))).as("decision " + i)
                        .isEqualTo(RestoreAndReplayTest.bytes(run.decisions().get(i)));
            }
        }
    }

    /** The engine of p1 as a restart would rebuild it from the placer's stores. */
    private static byte[] restored(final Harness h) {
        final KeyValueStore<String, byte[]> jobs = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
        final JournalApplier applier = new JournalApplier(new KeyedJobBook(new StoreBookMap(jobs), BookChanges.NONE, true));
        return EngineRestorer.restore(h.storedEngine("p1"), Harness.configs(HalfAppliedGang.SETTINGS).apply("p1"), applier,
                h.codecs.deserializer(JournalEntry.class)).snapshot();
    }
}
