package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.EngineSettings;
import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.Tick;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Stage 1 journals the engine settings a pool runs with before the first entry each of its writers
 * (node facts with their clock ticks, job routing) appends for that pool after it starts, and not again.
 */
class StageOneSettingsTest {

    @Test
    void eachWriterJournalsAPoolsSettingsOnceBeforeItsFirstEntryForThatPool() throws Exception {
        try (Harness h = new Harness(1000, 10_000)) {
            h.inventory.pipeInput("a0", Fixtures.node("pa", "a0", "leaf-a", 8), 1_000);
            h.inventory.pipeInput("b0", Fixtures.node("pb", "b0", "leaf-b", 8), 1_000);
            h.inventory.pipeInput("a1", Fixtures.node("pa", "a1", "leaf-a", 8), 2_000);
            h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("pa", 1, 8).build()), 3_000);
            h.jobs.pipeInput("j2", Fixtures.submit("j2", Fixtures.request("pa", 1, 8).build()), 4_000);
            h.inventory.pipeInput("a2", Fixtures.node("pa", "a2", "leaf-a", 8), 30_000); // and clock ticks for both pools
            final List<TestRecord<String, JournalEntry>> journal = h.journal();

            // node facts (inventory, ticks) journal pa's settings first; job routing before its first job of pa
            final List<String> pa = kinds(journal, "pa");
            assertThat(pa).startsWith("settings", "inventory").contains("tick").endsWith("inventory", "tick");
            assertThat(pa.subList(pa.indexOf("job") - 1, pa.lastIndexOf("job") + 1)).containsExactly("settings", "job", "job");
            assertThat(pa).filteredOn("settings"::equals).hasSize(2);
            final List<String> pb = kinds(journal, "pb");
            assertThat(pb).startsWith("settings", "inventory").contains("tick").filteredOn("settings"::equals).hasSize(1);
            for (final TestRecord<String, JournalEntry> r : journal) {
                if (r.value().getPayload() instanceof EngineSettings s) {
                    assertThat(new TreeMap<>(s.getSettings())).isEqualTo(EngineConfig.fromSettings(Map.of("pool", r.key()))
                            .toSettings());
                    assertThat(r.value().getSource()).isNull();
                }
            }
            // the placer's engines run under those settings (the ones they were configured with: nothing changed)
            final EngineConfig running = h.engines.pool("pa").orElseThrow().read(PoolEngine::config);
            assertThat(running).isEqualTo(EngineConfig.fromSettings(Map.of("pool", "pa")));
        }
    }

    private static List<String> kinds(final List<TestRecord<String, JournalEntry>> journal, final String pool) {
        return journal.stream().filter(r -> r.key().equals(pool)).map(r -> {
            final Object p = r.value().getPayload();
            return p instanceof EngineSettings ? "settings" : p instanceof InventoryChange ? "inventory"
                    : p instanceof JobCommand ? "job" : p instanceof Tick ? "tick" : p.getClass().getSimpleName();
        }).toList();
    }
}
