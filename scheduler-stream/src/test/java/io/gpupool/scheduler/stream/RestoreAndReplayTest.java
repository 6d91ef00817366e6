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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
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
            final KeyValueStore<String, byte[]> jobs = h.driver.getKeyValueStore(PlacerProcessor.JOB_STORE);
            // the book as the live run left it: a restore re-applies the tail without changing it
            final JournalApplier applier = new JournalApplier(new KeyedJobBook(new StoreBookMap(jobs), BookChanges.NONE, true));
            final List<EngineStore.Stored> stored = h.storedEngines();
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
     * A pool stored by a scheduler of before (a meta record without the covered offset, the entries since its snapshot
     * in the tail store) restores from that tail without reading the journal, keeps appending to it, and leaves it at
     * its next snapshot. The placer runs on a copy of the test driver's stores (a restart on a kept state directory),
     * rewritten in that form, and is given the journal records the live run goes on to write.
     */
    @Test
    void aPoolStoredInTheFormOfBeforeRestoresFromItsTailStoreAndLeavesItAtTheNextSnapshot() throws Exception {
        try (Harness h = new Harness(50, 10_000)) {
            workload(h, 42);
            final MockProcessorContext<Object, Object> ctx = new MockProcessorContext<>();
            for (final String name : new String[] {EngineStore.SNAPSHOTS, EngineStore.TAIL, PlacerProcessor.JOB_STORE,
                    DecisionHistory.STORE}) {
                final KeyValueStore<String, byte[]> copy = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
                        Serdes.String(), Serdes.ByteArray()).withLoggingDisabled().build();
                copy.init(ctx.getStateStoreContext(), copy);
                ctx.addStateStore(copy);
                try (KeyValueIterator<String, byte[]> it = h.driver.<String, byte[]>getKeyValueStore(name).all()) {
                    it.forEachRemaining(kv -> copy.put(kv.key, kv.value));
                }
            }
            final KeyValueStore<String, byte[]> snapshots = ctx.getStateStore(EngineStore.SNAPSHOTS);
            final EngineStore store = new EngineStore(snapshots, ctx.getStateStore(EngineStore.TAIL));
            int tails = 0;
            for (final EngineStore.Stored s : h.storedEngines()) {
                final byte[] meta = snapshots.get(EngineStore.metaKey(s.pool()));
                snapshots.put(EngineStore.metaKey(s.pool()), Arrays.copyOf(meta, EngineStore.LEGACY_META_BYTES));
                for (int slot = 0; slot < s.tail().size(); slot++) {
                    store.appendTail(s.pool(), s.generation(), slot, s.tail().get(slot));
                }
                tails += s.tail().size();
            }
            assertThat(tails).as("entries since the last snapshots").isPositive();

            final PoolEngines engines = new PoolEngines();
            final PlacerProcessor placer = new PlacerProcessor(Harness.configs(Map.of()), 50, engines, h.metrics, h.codecs,
                    "decisions", JournalReader.NONE, h.backlog); // reading the journal would throw
            placer.init(ctx);
            for (final String pool : List.of("p1", "p2")) {
                assertThat(engines.pool(pool).orElseThrow().read(PoolEngine::snapshot)).as("pool " + pool)
                        .isEqualTo(h.engines.pool(pool).orElseThrow().read(PoolEngine::snapshot));
            }

            final int before = store.load("p1").tail().size();
            final long from = h.journal().size();
            long next = from;
            for (int i = 0; i < 60; i++) {
                h.jobs.pipeInput("more" + i, Fixtures.submit("more" + i, Fixtures.request("p1", 1, 1).build()), 200_000 + i);
                next = feed(h, placer, ctx, next);
                if (i == 2) {
                    assertThat(store.load("p1")).satisfies(s -> {
                        assertThat(s.legacy()).as("no snapshot yet").isTrue();
                        assertThat(s.tail()).as("still appended to the tail store").hasSizeGreaterThanOrEqualTo(before + 3);
                    });
                }
            }
            assertThat(store.load("p1").legacy()).as("the next snapshot is of the new form").isFalse();
            assertThat(engines.pool("p1").orElseThrow().read(PoolEngine::snapshot))
                    .isEqualTo(h.engines.pool("p1").orElseThrow().read(PoolEngine::snapshot));
        }
    }

    /** Gives the placer the journal records from offset {@code from} on, as its task would read them; returns the next offset. */
    private static long feed(final Harness h, final PlacerProcessor placer, final MockProcessorContext<Object, Object> ctx,
                             final long from) {
        final long[] next = {from};
        h.journalReader().readProcessed(0, from, (offset, value) -> {
            ctx.setRecordMetadata(h.topics.journal(), 0, offset);
            placer.process(new Record<>(null, value, 0L));
            next[0] = offset + 1;
        });
        return next[0];
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
            final List<EngineStore.Stored> stored = h.storedEngines();
            int unflushed = 0;
            for (final EngineStore.Stored s : stored) {
                final UnflushedHistory again = new UnflushedHistory();
                final PoolEngine engine = EngineRestorer.restore(s, EngineConfig.fromSettings(Map.of("pool", s.pool())),
                        applier, h.codecs.deserializer(JournalEntry.class), again.refill(book, history::get));
                restored.register(s.pool(), engine, again, s.tail().size());
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
