package io.gpupool.scheduler.journal;

import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.JournalPosition;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The pools' engines of an offline replay (audit, explain --at, what-if), each applied to all or nothing as the
 * placer applies them: an entry the engine throws on is undone by rebuilding the engine from a checkpoint (a
 * snapshot taken every {@value #CHECKPOINT_EVERY} entries) and the entries applied since, and it is skipped
 * the way the placer skips it ({@link SkippedEntry}). The placer rebuilds from its stores instead; both give
 * the engine as it was before the entry, because the engine is deterministic.
 */
public final class ReplayPools {
    /** Entries between checkpoints: a snapshot costs about what a few hundred entries do, a rebuild re-applies at most this many. */
    public static final int CHECKPOINT_EVERY = 2_000;

    /** An entry applied since the pool's checkpoint. */
    private record Step(JournalEntry entry, JournalPosition cause) {
    }

    /** One pool: its engine, the checkpoint it can go back to and the entries applied after it. */
    private static final class Pool {
        PoolEngine engine;
        byte[] checkpoint;
        EngineConfig checkpointConfig;
        final List<Step> since = new ArrayList<>();

        Pool(final PoolEngine engine, final byte[] snapshot) {
            this.engine = engine;
            this.checkpoint = snapshot;
            this.checkpointConfig = engine.config();
        }

        void checkpoint() {
            checkpoint = engine.snapshot();
            checkpointConfig = engine.config();
            since.clear();
        }
    }

    private final Function<String, EngineConfig> configs;
    private final Map<String, Pool> pools = new TreeMap<>();
    private final Map<String, PoolEngine> engines = new TreeMap<>();
    private long skipped;

    public ReplayPools(final Function<String, EngineConfig> configs) {
        this.configs = configs;
    }

    /** Starts {@code pool} from an engine snapshot instead of an empty engine. */
    public PoolEngine startFrom(final String pool, final byte[] snapshot) {
        final PoolEngine engine = PoolEngine.restore(snapshot, configs.apply(pool));
        put(pool, new Pool(engine, snapshot));
        return engine;
    }

    /** Applies one entry to its pool's engine with {@code applier}, all or nothing. */
    public Applied apply(final JournalApplier applier, final JournalEntry entry, final JournalPosition cause) {
        final String name = entry.getPool();
        Pool pool = pools.get(name);
        if (pool == null) {
            final PoolEngine fresh = new PoolEngine(configs.apply(name));
            pool = new Pool(fresh, fresh.snapshot());
            put(name, pool);
        }
        try {
            final Applied applied = applier.apply(pool.engine, entry, cause);
            pool.since.add(new Step(entry, cause));
            if (pool.since.size() >= CHECKPOINT_EVERY) {
                pool.checkpoint();
            }
            return applied;
        } catch (final RuntimeException e) {
            rebuild(name, pool, applier);
            skipped++;
            return applier.skipped(pool.engine, entry, cause, e);
        }
    }

    private void rebuild(final String name, final Pool pool, final JournalApplier applier) {
        applier.forgetPool(name);
        pool.engine = PoolEngine.restore(pool.checkpoint, pool.checkpointConfig);
        for (final Step s : pool.since) {
            applier.reapply(pool.engine, s.entry(), s.cause()); // applied once without throwing: it does so again
        }
        engines.put(name, pool.engine);
    }

    private void put(final String name, final Pool pool) {
        pools.put(name, pool);
        engines.put(name, pool.engine);
    }

    /** The engine of {@code pool} now (a skipped entry replaces it), or null when the replay has not met it. */
    public PoolEngine engine(final String pool) {
        return engines.get(pool);
    }

    /** Every pool's engine now, by pool. */
    public Map<String, PoolEngine> engines() {
        return Collections.unmodifiableMap(engines);
    }

    /** Entries skipped because the engine threw on them. */
    public long skipped() {
        return skipped;
    }
}
