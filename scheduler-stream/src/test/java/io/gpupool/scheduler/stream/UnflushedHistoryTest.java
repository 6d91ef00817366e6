package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.JobBook;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * Histories are written a while after they change, a few per entry, and the rest with the snapshot; a restore that
 * re-applies the entries after the snapshot adds back only the decisions no stored history holds.
 */
class UnflushedHistoryTest {

    private static PlacementDecision d(final String job, final long offset, final int n) {
        return PlacementDecision.newBuilder().setDecisionId("p-" + offset + "-" + n).setJobId(job).setPool("p")
                .setOutcome(DecisionOutcome.PLACED).setCause(new JournalPosition(0, offset, Instant.ofEpochMilli(offset)))
                .build();
    }

    private static KeyValueStore<String, byte[]> store() {
        final KeyValueStore<String, byte[]> s = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("h"),
                Serdes.String(), Serdes.ByteArray()).withLoggingDisabled().build();
        s.init(new MockProcessorContext<>().getStateStoreContext(), s);
        return s;
    }

    @Test
    void aChangedHistoryIsWrittenAfterTheWaitAFewPerEntry() {
        final KeyValueStore<String, byte[]> store = store();
        final UnflushedHistory h = new UnflushedHistory(10);
        for (int job = 0; job < 20; job++) { // one entry deciding 20 jobs
            h.append("j" + job, d("j" + job, 0, 0), store::get);
        }
        int written = 0;
        for (int entry = 1; entry <= 9; entry++) {
            written += h.flushDue(store);
        }
        assertThat(written).as("not before 10 entries").isZero();
        assertThat(h.flushDue(store)).isEqualTo(UnflushedHistory.FLUSH_PER_ENTRY);
        assertThat(h.flushDue(store)).isEqualTo(UnflushedHistory.FLUSH_PER_ENTRY);
        assertThat(h.flushDue(store)).isEqualTo(20 - 2 * UnflushedHistory.FLUSH_PER_ENTRY);
        assertThat(h.size()).isZero();
        assertThat(DecisionHistory.read(store.get("j7"))).extracting(PlacementDecision::getDecisionId).containsExactly("p-0-0");
    }

    /**
     * A seeded run: decisions for a few jobs over many entries, histories written as they fall due, a snapshot now
     * and then. At every point, a restore from the store and the snapshot's position (the entries after it re-applied)
     * shows each job the same history as the live run.
     */
    @Test
    void aRestoreAfterHistoriesWereWrittenBetweenSnapshotsAddsNoDecisionTwice() {
        final Random rnd = new Random(5);
        final KeyValueStore<String, byte[]> store = store();
        final UnflushedHistory live = new UnflushedHistory(7);
        final List<List<PlacementDecision>> entries = new ArrayList<>();
        long snapshotAt = -1;
        for (long offset = 0; offset < 400; offset++) {
            final List<PlacementDecision> decided = new ArrayList<>();
            for (int n = 0; n < rnd.nextInt(3); n++) {
                decided.add(d("j" + rnd.nextInt(6), offset, n));
            }
            for (final PlacementDecision x : decided) {
                live.append(x.getJobId(), x, store::get);
            }
            entries.add(decided);
            live.flushDue(store);
            if (rnd.nextInt(40) == 0) {
                live.flushTo(store);
                snapshotAt = offset;
            }
            if (offset % 25 == 24) {
                assertRestoredEqualsLive(store, live, entries, snapshotAt);
            }
        }
    }

    private static void assertRestoredEqualsLive(final KeyValueStore<String, byte[]> store, final UnflushedHistory live,
                                                 final List<List<PlacementDecision>> entries, final long snapshotAt) {
        final UnflushedHistory restored = new UnflushedHistory(7);
        final var refill = restored.refill(JobBook.inMemory(), store::get);
        for (long offset = snapshotAt + 1; offset < entries.size(); offset++) {
            refill.accept(new Applied(entries.get((int) offset), List.of(), null),
                    new JournalPosition(0, offset, Instant.ofEpochMilli(offset)));
        }
        final Map<String, List<String>> want = new TreeMap<>();
        final Map<String, List<String>> got = new TreeMap<>();
        for (int job = 0; job < 6; job++) {
            final String id = "j" + job;
            want.put(id, ids(live.get(id) != null ? live.get(id) : store.get(id)));
            got.put(id, ids(restored.get(id) != null ? restored.get(id) : store.get(id)));
        }
        assertThat(got).isEqualTo(want);
    }

    private static List<String> ids(final byte[] history) {
        return DecisionHistory.read(history).stream().map(PlacementDecision::getDecisionId).toList();
    }
}
