package io.gpupool.scheduler.journal;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.EngineSettings;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.JournalPosition;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.core.ScoringPolicy;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** An EngineSettings entry gives the pool's engine its configuration from that position on, and says what changed. */
class JournaledSettingsTest {
    private static final EngineConfig CONFIGURED = EngineConfig.defaults("p");

    @Test
    void settingsThatDifferReconfigureTheEngineAndNameEachChangedKey() {
        final PoolEngine engine = new PoolEngine(CONFIGURED);
        final Map<String, String> journaled = new TreeMap<>(CONFIGURED.toSettings());
        journaled.put("policy", "first-fit");
        journaled.put("tenant.ml.max-gpus", "16");
        final Applied a = JournalApplier.offline().apply(engine, entry(journaled), at(7));
        assertThat(engine.config().policy()).isEqualTo(ScoringPolicy.FIRST_FIT);
        assertThat(engine.config().tenant("ml").maxGpus()).isEqualTo(16);
        assertThat(a.decisions()).isEmpty();
        assertThat(a.configChange()).isNotNull();
        assertThat(a.configChange().offset()).isEqualTo(7);
        assertThat(a.configChange().changes()).containsExactly("policy: best-fit -> first-fit",
                "tenant.ml.guaranteed-gpus: (unset) -> 0", "tenant.ml.max-gpus: (unset) -> 16",
                "tenant.ml.weight: (unset) -> 1.0");
        assertThat(a.configChange().describe()).startsWith("pool p: engine configuration changed at journal 0@7: ");
    }

    @Test
    void theSameSettingsAgainChangeNothing() {
        final PoolEngine engine = new PoolEngine(CONFIGURED);
        final byte[] before = engine.snapshot();
        final Applied a = JournalApplier.offline().apply(engine, entry(CONFIGURED.toSettings()), at(3));
        assertThat(a.configChange()).isNull();
        assertThat(engine.snapshot()).isEqualTo(before);
    }

    /** What-if overrides go over the journaled settings; what the journal says otherwise still holds. */
    @Test
    void overridesAreLaidOverTheJournaledSettings() {
        final PoolEngine engine = new PoolEngine(CONFIGURED);
        final Map<String, String> journaled = new TreeMap<>(CONFIGURED.toSettings());
        journaled.put("tenant.ml.max-gpus", "16");
        JournalApplier.offline(Map.of("policy", "fgd")).apply(engine, entry(journaled), at(1));
        assertThat(engine.config().policy()).isEqualTo(ScoringPolicy.FGD);
        assertThat(engine.config().tenant("ml").maxGpus()).isEqualTo(16);
    }

    private static JournalEntry entry(final Map<String, String> settings) {
        return JournalEntry.newBuilder().setPool("p").setTimestamp(Instant.ofEpochMilli(1_000)).setSource(null)
                .setPayload(EngineSettings.newBuilder().setSettings(new TreeMap<>(settings)).build()).build();
    }

    private static JournalPosition at(final long offset) {
        return new JournalPosition(0, offset, Instant.ofEpochMilli(1_000));
    }
}
