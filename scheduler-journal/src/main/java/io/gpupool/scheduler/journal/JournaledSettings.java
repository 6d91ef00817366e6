package io.gpupool.scheduler.journal;

import io.gpupool.avro.EngineSettings;
import io.gpupool.avro.JournalPosition;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Applies an EngineSettings journal entry: when its settings give another configuration than the
 * engine's, the engine runs under them from this position on ({@link PoolEngine#reconfigure}). The
 * placer, restore, audit and replay all go through here, so they change configuration at the same
 * entry. A what-if replay gives overrides, which are laid over every journaled setting.
 */
final class JournaledSettings {
    private final SortedMap<String, String> overrides;

    JournaledSettings(final Map<String, String> overrides) {
        this.overrides = Collections.unmodifiableSortedMap(new TreeMap<>(overrides));
    }

    Applied apply(final PoolEngine engine, final String pool, final EngineSettings entry, final JournalPosition cause) {
        final SortedMap<String, String> settings = new TreeMap<>(entry.getSettings());
        settings.putAll(overrides);
        settings.put("pool", pool); // decision ids are the pool's, whatever a writer put there
        final EngineConfig next = EngineConfig.fromRecordedSettings(settings);
        if (next.equals(engine.config())) {
            return Applied.NOTHING;
        }
        final ConfigChange change = new ConfigChange(pool, cause.getPartition(), cause.getOffset(),
                engine.config().toSettings(), next.toSettings());
        engine.reconfigure(next);
        return Applied.configChanged(change);
    }
}
