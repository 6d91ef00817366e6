package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.GpuCondition;
import io.gpupool.avro.GpuHealth;
import io.gpupool.avro.GpuHealthChange;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.SourceRef;
import io.gpupool.avro.Tick;
import io.gpupool.avro.UtilisationBand;
import io.gpupool.avro.UtilisationBandChange;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.GpuView;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * The facts stage 2 needs travel as typed fields of the journal: stage 1 writes them and stage 2
 * applies them without reading any text; entries written before those fields (null) still apply
 * as they did.
 */
class TypedJournalFactsTest {
    private static final String POOL = "p1";
    private static final EngineConfig CONFIG = EngineConfig.fromSettings(
            Map.of("pool", POOL, "stale-telemetry-timeout-ms", "60000"));

    @Test
    void anOverheatingGpuIsJournaledTypedAndStage2UsesTheReadingNotTheText() throws Exception {
        final List<JournalEntry> journal = new ArrayList<>();
        try (Harness h = new Harness(1000, 10_000)) {
            h.inventory.pipeInput("n0", Fixtures.node(POOL, "n0", "leaf-a", 8), 1_000);
            final GpuSamples hot = Fixtures.gpus("n0", 8, 50, 2_000);
            hot.getGpus().get(2).setTemperatureC(97.4);
            h.gpu.pipeInput("n0", hot, 2_000);
            h.journal().stream().map(TestRecord::value).forEach(journal::add);

            final GpuHealthChange fact = only(journal, GpuHealthChange.class);
            assertThat(fact.getGpuIndex()).isEqualTo(2);
            assertThat(fact.getConditions()).containsExactly(GpuCondition.OVERHEAT);
            assertThat(fact.getTemperatureC()).isEqualTo(97.4);
            assertThat(h.engines.pool(POOL).orElseThrow().read(e -> gpu(e, "n0", 2)).health())
                    .isEqualTo("temperature 97 C");
        }
        // Neither message nor reason code says how hot, or that it is hot: the typed fields do.
        final GpuHealthChange fact = only(journal, GpuHealthChange.class);
        fact.setEvidence("running hot");
        fact.setReasonCode(null);
        final PoolEngine engine = replay(journal);
        final GpuView g = gpu(engine, "n0", 2);
        assertThat(g.healthy()).isFalse();
        assertThat(g.health()).isEqualTo("temperature 97 C");
    }

    @Test
    void utilisationAndHeartbeatsNameTheirGpuAndNodeTyped() throws Exception {
        final List<JournalEntry> journal = new ArrayList<>();
        try (Harness h = new Harness(1000, 10_000)) {
            h.inventory.pipeInput("n0", Fixtures.node(POOL, "n0", "leaf-a", 8), 1_000);
            h.gpu.pipeInput("n0", Fixtures.gpus("n0", 8, 42, 2_000), 2_000);
            h.gpu.pipeInput("n0", Fixtures.gpus("n0", 8, 42, 40_000), 40_000); // quiet: a heartbeat
            h.journal().stream().map(TestRecord::value).forEach(journal::add);
        }
        final UtilisationBandChange band = journal.stream().map(JournalEntry::getPayload)
                .filter(UtilisationBandChange.class::isInstance).map(UtilisationBandChange.class::cast)
                .filter(u -> u.getGpuUuid().equals(Fixtures.uuid("n0", 5))).findFirst().orElseThrow();
        assertThat(band.getGpuIndex()).isEqualTo(5);
        final Tick heartbeat = only(journal, Tick.class, t -> t.getNodeId() != null);
        assertThat(heartbeat.getNodeId()).isEqualTo("n0");

        // stage 2 takes the index and the node from those fields, not from the uuid or the source record
        band.setGpuUuid("no-such-uuid");
        band.setUtilizationGpuPct(77.0);
        for (final JournalEntry e : journal) {
            if (e.getPayload() == heartbeat) {
                e.setSource(null);
            }
        }
        journal.add(entry(90_000, null, new Tick("clock", null))); // 50 s after the heartbeat: not stale
        final PoolEngine engine = replay(journal);
        assertThat(gpu(engine, "n0", 5).utilisationPct()).isEqualTo(77);
        assertThat(engine.node("n0").orElseThrow().gpus()).allMatch(GpuView::healthy);
    }

    @Test
    void entriesWrittenBeforeTheTypedFieldsStillApply() {
        final List<JournalEntry> journal = new ArrayList<>();
        journal.add(entry(1_000, "n0", InventoryChange.newBuilder().setNodeId("n0")
                .setInventory(Fixtures.node(POOL, "n0", "leaf-a", 8)).build()));
        journal.add(entry(2_000, "n0", GpuHealthChange.newBuilder().setNodeId("n0")
                .setGpuUuid(Fixtures.uuid("n0", 3)).setGpuIndex(null).setHealth(GpuHealth.UNHEALTHY)
                .setReasonCode("XID+OVERHEAT").setEvidence("Xid 79, temperature 94 C").setXidCodes(List.of(79))
                .build()));
        journal.add(entry(2_000, "n0", UtilisationBandChange.newBuilder().setNodeId("n0")
                .setGpuUuid(Fixtures.uuid("n0", 4)).setBand(UtilisationBand.MEDIUM).setUtilizationGpuPct(42.0).build()));
        journal.add(entry(50_000, "n0", new Tick("heartbeat", null)));
        journal.add(entry(90_000, null, new Tick("clock", null)));
        assertThat(journal.get(1).getPayload()).extracting("conditions", "temperatureC").containsOnlyNulls();

        final PoolEngine engine = replay(journal);
        assertThat(gpu(engine, "n0", 3).health()).isEqualTo("Xid 79, temperature 94 C");
        assertThat(gpu(engine, "n0", 4).utilisationPct()).isEqualTo(42);
        // the heartbeat named its node only by the source key, and still kept the other GPUs fresh
        assertThat(engine.node("n0").orElseThrow().gpus()).filteredOn(g -> g.index() != 3).allMatch(GpuView::healthy);
    }

    private static PoolEngine replay(final List<JournalEntry> journal) {
        final PoolEngine engine = new PoolEngine(CONFIG);
        final JournalApplier applier = JournalApplier.offline();
        for (int i = 0; i < journal.size(); i++) {
            applier.apply(engine, journal.get(i), new JournalRecord(0, i, journal.get(i)).position());
        }
        return engine;
    }

    private static JournalEntry entry(final long at, final String key, final Object payload) {
        final SourceRef source = key == null ? null : SourceRef.newBuilder().setTopic("test").setPartition(0)
                .setOffset(0).setKey(key).build();
        return JournalEntry.newBuilder().setPool(POOL).setTimestamp(Instant.ofEpochMilli(at)).setSource(source)
                .setPayload(payload).build();
    }

    private static GpuView gpu(final PoolEngine engine, final String node, final int index) {
        return engine.node(node).orElseThrow().gpus().get(index);
    }

    private static <T> T only(final List<JournalEntry> journal, final Class<T> type) {
        return only(journal, type, x -> true);
    }

    private static <T> T only(final List<JournalEntry> journal, final Class<T> type,
                              final Predicate<T> which) {
        final List<T> found = journal.stream().map(JournalEntry::getPayload).filter(type::isInstance).map(type::cast)
                .filter(which).toList();
        assertThat(found).hasSize(1);
        return found.get(0);
    }
}
