package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.JobEventType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pool is snapshotted once the journal entries since its last snapshot hold {@link
 * PlacerProcessor#TAIL_BYTES_PER_SNAPSHOT_BYTE} bytes per byte of that snapshot, so that a small pool's restart
 * re-applies a few snapshots' worth of entries, not up to {@code --snapshot-every}, while the snapshots write at
 * most a quarter of the journal's bytes twice; and that a large snapshot (a deep queue) stretches {@code
 * --snapshot-every}, so that it is not written every {@code --snapshot-every} entries whatever its size.
 */
class SnapshotCadenceTest {
    /** Jobs sent between two looks at the stored state (each look re-reads the journal). */
    private static final int JOBS_PER_LOOK = 250;

    @Test
    void aSmallPoolIsSnapshottedLongBeforeSnapshotEveryEntries() throws Exception {
        // few finished jobs kept, so that the pool's snapshot stays small as the jobs go through
        try (Harness h = new Harness(50_000, 600_000, Map.of("finished-jobs-retained", "100"))) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1);
            long t = 10;
            for (int i = 0; i < 4_000; i++) { // 8,000 entries: submit and COMPLETED of each job
                t = jobThrough(h, "j" + i, t);
            }
            final List<EngineStore.Stored> stored = h.storedEngines();
            assertThat(stored).singleElement().satisfies(s -> {
                assertThat(s.generation()).isGreaterThanOrEqualTo(3L);
                assertThat(s.snapshot()).isNotNull();
                assertThat(tailBytes(s)).isLessThan(PlacerProcessor.TAIL_BYTES_PER_SNAPSHOT_BYTE * (long) s.snapshot().length);
            });
        }
    }

    @Test
    void aTailHeavierThanItsSnapshotWaitsUntilItWeighsFourTimesAsMuch() throws Exception {
        try (Harness h = new Harness(50_000, 600_000)) {
            long t = 1;
            for (int n = 0; n < 1_000; n++) { // the first snapshot, at entry 1,000, holds these 1,000 nodes
                h.inventory.pipeInput("n" + n, Fixtures.node("p1", "n" + n, "leaf-" + n % 8, 8), t++);
            }
            EngineStore.Stored s = h.storedEngines().get(0);
            int jobs = 0;
            while (tailBytes(s) <= s.snapshot().length) { // until the tail outweighs the snapshot it follows
                assertThat(jobs).as("jobs sent before the tail outweighed the snapshot").isLessThan(20_000);
                for (int i = 0; i < JOBS_PER_LOOK; i++, jobs++) {
                    t = jobThrough(h, "j" + jobs, t);
                }
                s = h.storedEngines().get(0);
            }
            assertThat(s.generation()).as("no second snapshot while the tail weighs less than four snapshots").isEqualTo(1L);
            assertThat(s.tail()).hasSizeGreaterThan(PlacerProcessor.MIN_TAIL_ENTRIES);
            final long firstSnapshot = s.snapshot().length;
            while (s.generation() == 1L) {
                assertThat(tailBytes(s)).isLessThan(PlacerProcessor.TAIL_BYTES_PER_SNAPSHOT_BYTE * firstSnapshot);
                for (int i = 0; i < JOBS_PER_LOOK; i++, jobs++) {
                    t = jobThrough(h, "j" + jobs, t);
                }
                s = h.storedEngines().get(0);
            }
            assertThat(s.generation()).isEqualTo(2L);
        }
    }

    @Test
    void aLargeSnapshotStretchesSnapshotEveryUpToItsBound() throws Exception {
        final int every = 300;
        try (Harness h = new Harness(every, 600_000)) {
            long t = 1;
            // about 600 bytes of snapshot a node: the snapshot at entry 2,100 is over 1 MB, and over 4 x 300 x 256 bytes
            for (int n = 0; n < 2_400; n++) {
                h.inventory.pipeInput("n" + n, Fixtures.node("p1", "n" + n, "leaf-" + n % 8, 8), t++);
            }
            EngineStore.Stored s = h.storedEngines().get(0);
            assertThat((long) s.snapshot().length).as("a snapshot that stretches the cadence to its bound")
                    .isGreaterThanOrEqualTo(PlacerProcessor.MIN_STRETCHED_SNAPSHOT_BYTES)
                    .isGreaterThan((long) PlacerProcessor.MAX_SNAPSHOT_EVERY_STRETCH * every
                            * PlacerProcessor.SNAPSHOT_BYTES_PER_TAIL_ENTRY);
            final long generation = s.generation();
            int longestTail = s.tail().size();
            int jobs = 0;
            while (s.generation() == generation) {
                assertThat(jobs).as("jobs sent before the next snapshot").isLessThan(2_000);
                for (int i = 0; i < 25; i++, jobs++) { // 50 entries between two looks
                    t = jobThrough(h, "j" + jobs, t);
                }
                s = h.storedEngines().get(0);
                if (s.generation() == generation) {
                    longestTail = Math.max(longestTail, s.tail().size());
                }
            }
            assertThat(longestTail).as("entries held since the snapshot: more than --snapshot-every, within its bound")
                    .isGreaterThan(every).isLessThan(PlacerProcessor.MAX_SNAPSHOT_EVERY_STRETCH * every);
            assertThat(s.tail()).as("the next snapshot came at the bound").hasSizeLessThan(50);
        }
    }

    @Test
    void snapshotEveryIsStretchedForLargeSnapshotsOnly() {
        final int perEntry = PlacerProcessor.SNAPSHOT_BYTES_PER_TAIL_ENTRY;
        assertThat(PlacerProcessor.entriesPerSnapshot(50_000, 5_400_000)).as("a 5.4 MB snapshot").isEqualTo(50_000);
        assertThat(PlacerProcessor.entriesPerSnapshot(50_000, 30_000_000)).isEqualTo(30_000_000 / perEntry);
        assertThat(PlacerProcessor.entriesPerSnapshot(50_000, 60_000_000)).as("a 60 MB snapshot: at the bound")
                .isEqualTo(PlacerProcessor.MAX_SNAPSHOT_EVERY_STRETCH * 50_000L);
        assertThat(PlacerProcessor.entriesPerSnapshot(50_000, 0)).as("no snapshot yet").isEqualTo(50_000);
        assertThat(PlacerProcessor.entriesPerSnapshot(3, 600_000)).as("under 1 MB: --snapshot-every as set").isEqualTo(3);
        assertThat(PlacerProcessor.entriesPerSnapshot(3, 2_000_000)).isEqualTo(PlacerProcessor.MAX_SNAPSHOT_EVERY_STRETCH * 3L);
    }

    private static long jobThrough(final Harness h, final String id, final long t) {
        h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", 1, 1).build()), t);
        h.events.pipeInput(id, h.event(id, JobEventType.COMPLETED, t + 1), t + 1);
        return t + 2;
    }

    private static long tailBytes(final EngineStore.Stored s) {
        return s.tail().stream().mapToLong(e -> e.journalValue().length).sum();
    }
}
