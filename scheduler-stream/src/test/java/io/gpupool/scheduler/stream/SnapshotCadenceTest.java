package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.JobEventType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A pool is snapshotted once the journal entries since its last snapshot hold as many bytes as that snapshot, so
 * that a small pool's restart re-applies about a snapshot's worth of entries, not up to {@code --snapshot-every}.
 */
class SnapshotCadenceTest {

    @Test
    void aSmallPoolIsSnapshottedLongBeforeSnapshotEveryEntries() throws Exception {
        try (Harness h = new Harness(50_000, 600_000)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1);
            long t = 10;
            for (int i = 0; i < 1_500; i++) { // 3,000 entries: submit and COMPLETED of each job, and it is tiny
                final String id = "j" + i;
                h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", 1, 1).build()), t++);
                h.events.pipeInput(id, h.event(id, JobEventType.COMPLETED, t), t++);
            }
            final List<EngineStore.Stored> stored = h.storedEngines();
            assertThat(stored).singleElement().satisfies(s -> {
                // the empty pool's snapshot is due at the first entry after 1,000; then one every 1,000 entries
                assertThat(s.generation()).isBetween(2L, 3L);
                assertThat(s.tail().size()).isLessThan(PlacerProcessor.MIN_TAIL_ENTRIES);
                assertThat(s.snapshot()).isNotNull();
            });
        }
    }

    @Test
    void aPoolWhoseSnapshotOutweighsItsTailWaitsForSnapshotEvery() throws Exception {
        try (Harness h = new Harness(3_000, 600_000)) {
            long t = 1;
            for (int n = 0; n < 1_000; n++) { // the first snapshot, at entry 1,000, holds these 1,000 nodes
                h.inventory.pipeInput("n" + n, Fixtures.node("p1", "n" + n, "leaf-" + n % 8, 8), t++);
            }
            for (int i = 0; i < 700; i++) { // 1,400 entries more: more than 1,000, fewer bytes than that snapshot
                final String id = "j" + i;
                h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", 1, 1).build()), t++);
                h.events.pipeInput(id, h.event(id, JobEventType.COMPLETED, t), t++);
            }
            final List<EngineStore.Stored> stored = h.storedEngines();
            // one snapshot at entry 1,000 (the empty pool's is due at once), none after: the tail is lighter
            final int entries = h.journal().size();
            assertThat(entries).isBetween(2_400, 2_500);
            assertThat(stored).singleElement().satisfies(s -> {
                assertThat(s.generation()).isEqualTo(1L);
                assertThat(s.tail()).hasSize(entries - PlacerProcessor.MIN_TAIL_ENTRIES);
                assertThat(s.tail().stream().mapToLong(e -> e.journalValue().length).sum())
                        .isLessThan(s.snapshot().length);
            });
        }
    }
}
