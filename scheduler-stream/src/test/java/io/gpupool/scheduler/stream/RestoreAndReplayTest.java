package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.BookChanges;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.KeyedJobBook;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Engine state survives in the stores (snapshot + tail) exactly, and the recorded journal replayed
 * offline reproduces the recorded decisions byte for byte.
 */
class RestoreAndReplayTest {

    /** A seeded mixed workload: gangs, shares, completions, cancels, an Xid, a node leaving. */
    private static void workload(final Harness h, final long seed) {
        final Random rnd = new Random(seed);
        for (int n = 0; n < 8; n++) {
            h.inventory.pipeInput("n" + n, Fixtures.node("p1", "n" + n, "leaf-" + (n / 4), 8), 1_000);
        }
        h.inventory.pipeInput("m0", Fixtures.node("p2", "m0", "leaf-z", 4), 1_000);
        final List<String> placed = new ArrayList<>();
        long t = 2_000;
        for (int i = 0; i < 120; i++) {
            t += 100 + rnd.nextInt(400);
            final int kind = rnd.nextInt(10);
            if (kind < 6) {
                final String id = "j" + i;
                final int nodes = 1 + rnd.nextInt(2);
                final int gpus = 1 << rnd.nextInt(4);
                final String pool = rnd.nextInt(5) == 0 ? "p2" : "p1";
                h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request(pool, pool.equals("p2") ? 1 : nodes, gpus)
                        .setPriority(rnd.nextInt(3)).setPreemptible(rnd.nextBoolean()).build()), t);
                placed.add(id);
            } else if (kind < 8 && !placed.isEmpty()) {
                final String id = placed.remove(rnd.nextInt(placed.size()));
                h.events.pipeInput(id, h.event(id, JobEventType.COMPLETED, t), t);
            } else if (kind == 8 && !placed.isEmpty()) {
                final String id = placed.remove(rnd.nextInt(placed.size()));
                h.jobs.pipeInput(id, Fixtures.cancel(id), t);
            } else {
                final String node = "n" + rnd.nextInt(8);
                final GpuSamples s = Fixtures.gpus(node, 8, rnd.nextInt(100), t);
                if (rnd.nextInt(4) == 0) {
                    s.getGpus().get(rnd.nextInt(8)).setXidCodes(List.of(79));
                }
                h.gpu.pipeInput(node, s, t);
            }
        }
        h.inventory.pipeInput("n7", null, t + 10);
        h.jobs.pipeInput("last", Fixtures.submit("last", Fixtures.request("p1", 1, 1).build()), t + 20);
    }

    @Test
    void enginesRestoredFromSnapshotAndTailEqualTheLiveOnes() throws Exception {
        try (Harness h = new Harness(7, 10_000)) {
            workload(h, 42);
            final KeyValueStore<String, byte[]> snapshots = h.driver.getKeyValueStore(EngineStore.SNAPSHOTS);
            final KeyValueStore<String, byte[]> tail = h.driver.getKeyValueStore(EngineStore.TAIL);
            final KeyValueStore<String, byte[]> jobs = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
            // the book as the live run left it: a restore re-applies the tail without changing it
            final JournalApplier applier = new JournalApplier(new KeyedJobBook(new StoreBookMap(jobs), BookChanges.NONE, true));
            final List<EngineStore.Stored> stored = new EngineStore(snapshots, tail).load();
            assertThat(stored).extracting(EngineStore.Stored::pool).containsExactlyInAnyOrder("p1", "p2");
            assertThat(stored).anySatisfy(s -> assertThat(s.generation()).isGreaterThan(3));
            for (final EngineStore.Stored s : stored) {
                final PoolEngine restored = EngineRestorer.restore(s, EngineConfig.fromSettings(Map.of("pool", s.pool())),
                        applier, h.codecs.deserializer(JournalEntry.class));
                final byte[] live = h.engines.pool(s.pool()).orElseThrow().read(PoolEngine::snapshot);
                assertThat(restored.snapshot()).as("pool " + s.pool()).isEqualTo(live);
            }
        }
    }

    /**
     * The history store is written only with a snapshot: what a query shows (store, or what changed since) is every
     * job's last decisions as the decisions topic has them, live and after a restore that re-applied the tails.
     */
    @Test
    void decisionHistoriesLiveAndRestoredAreTheLastDecisionsOfEachJob() throws Exception {
        try (Harness h = new Harness(7, 10_000)) {
            workload(h, 42);
            final Map<String, List<String>> expected = new TreeMap<>();
            for (final PlacementDecision d : h.decisions()) {
                final List<String> ids = expected.computeIfAbsent(d.getJobId(), j -> new ArrayList<>());
                ids.add(d.getDecisionId());
                if (ids.size() > DecisionHistory.KEPT) {
                    ids.remove(0);
                }
            }
            final KeyValueStore<String, byte[]> history = h.driver.getKeyValueStore(DecisionHistory.STORE);
            final KeyValueStore<String, byte[]> jobs = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
            final KeyedJobBook book = new KeyedJobBook(new StoreBookMap(jobs), BookChanges.NONE, true);
            final JournalApplier applier = new JournalApplier(book);
            final PoolEngines restored = new PoolEngines();
            final List<EngineStore.Stored> stored = new EngineStore(h.driver.getKeyValueStore(EngineStore.SNAPSHOTS),
                    h.driver.getKeyValueStore(EngineStore.TAIL)).load();
            int unflushed = 0;
            for (final EngineStore.Stored s : stored) {
                final UnflushedHistory again = new UnflushedHistory();
                final PoolEngine engine = EngineRestorer.restore(s, EngineConfig.fromSettings(Map.of("pool", s.pool())),
                        applier, h.codecs.deserializer(JournalEntry.class), again.refill(book, history::get));
                restored.register(s.pool(), engine, again);
                unflushed += again.size();
            }
            assertThat(unflushed).as("decisions since the last snapshots, not in the store").isPositive();
            for (final Map.Entry<String, List<String>> e : expected.entrySet()) {
                assertThat(DecisionHistory.of(e.getKey(), h.engines, history::get))
                        .extracting(PlacementDecision::getDecisionId).as("live history of " + e.getKey())
                        .isEqualTo(e.getValue());
                assertThat(DecisionHistory.of(e.getKey(), restored, history::get))
                        .extracting(PlacementDecision::getDecisionId).as("restored history of " + e.getKey())
                        .isEqualTo(e.getValue());
            }
        }
    }

    @Test
    void theRecordedJournalReplayedOfflineReproducesTheDecisionsByteForByte() throws Exception {
        try (Harness h = new Harness(11, 10_000)) {
            workload(h, 7);
            final List<TestRecord<String, JournalEntry>> journal = h.journal();
            final List<PlacementDecision> recorded = h.decisions();
            assertThat(recorded.stream().map(PlacementDecision::getOutcome).distinct())
                    .contains(DecisionOutcome.PLACED, DecisionOutcome.RELEASED, DecisionOutcome.QUEUED);

            OfflineReplay.decidesAsRecorded(journal, recorded, p -> EngineConfig.fromSettings(Map.of("pool", p)));
        }
    }

    static byte[] bytes(final PlacementDecision d) throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>(PlacementDecision.class).write(d, enc);
        enc.flush();
        return out.toByteArray();
    }
}
