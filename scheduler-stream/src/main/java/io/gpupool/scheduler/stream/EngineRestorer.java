package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.journal.JournalApplier;

import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.JournalPosition;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import java.time.Instant;
import java.util.function.BiConsumer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Rebuilds a pool's engine from what {@link EngineStore} kept: the snapshot, then the tail entries
 * re-applied in order. The engine is deterministic, so this is the state it had; the outputs of the
 * re-applied entries are dropped because they were emitted (exactly once) the first time. The engine
 * runs under the settings its snapshot carries and those the tail journals; {@code config} (today's
 * settings) only where neither says (no snapshot yet, or one older than engine snapshot version 7).
 */
final class EngineRestorer {
    private EngineRestorer() {
    }

    static PoolEngine restore(final EngineStore.Stored stored, final EngineConfig config, final JournalApplier applier,
                              final Deserializer<JournalEntry> journal) {
        return restore(stored, config, applier, journal, (applied, cause) -> { });
    }

    /** As above, telling {@code decidedAgain} what each re-applied entry decided (its outputs are still dropped). */
    static PoolEngine restore(final EngineStore.Stored stored, final EngineConfig config, final JournalApplier applier,
                              final Deserializer<JournalEntry> journal,
                              final BiConsumer<Applied, JournalPosition> decidedAgain) {
        final PoolEngine engine = stored.snapshot() == null ? new PoolEngine(config)
                : PoolEngine.restore(stored.snapshot(), config);
        for (final EngineStore.TailEntry t : stored.tail()) {
            final JournalEntry e = journal.deserialize("journal-tail", t.journalValue());
            final JournalPosition cause = new JournalPosition(t.partition(), t.offset(), Instant.ofEpochMilli(t.timestamp()));
            decidedAgain.accept(applier.reapply(engine, e, cause), cause);
        }
        return engine;
    }
}
