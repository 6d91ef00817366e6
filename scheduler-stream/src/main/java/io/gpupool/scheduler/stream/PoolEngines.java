package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.PoolEngine;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The engines this instance owns, by pool. A stream thread drives each; the query and metrics threads read
 * only the pool's published {@link PoolView} (its {@link PoolViewBoard}), never the live engine, so a slow
 * query cannot hold the placer up. The pool's lock guards the live engine for the placer and for the tests
 * and benchmarks that read it directly ({@link Handle#read}).
 */
public final class PoolEngines {
    /** One pool's engine and the journal position it has reached. */
    public static final class Handle {
        private final String pool;
        private final PoolViewBoard views = new PoolViewBoard(this::journalOffset);
        private final UnflushedHistory history;
        private PoolEngine engine;
        /** Written by the stream thread, read by view readers without the lock. */
        private volatile long journalOffset = -1;
        /** Journal entries the restore re-applied after the pool's snapshot (0 for a new pool). */
        private final int restoredEntries;

        Handle(final String pool, final PoolEngine engine, final UnflushedHistory history, final int restoredEntries) {
            this.pool = pool;
            this.engine = engine;
            this.history = history;
            this.restoredEntries = restoredEntries;
        }

        /** The decision histories of the pool's jobs that changed since its last snapshot. */
        public UnflushedHistory history() {
            return history;
        }

        /** The pool's published views: what queries and gauges read. */
        public PoolViewBoard views() {
            return views;
        }

        public String pool() {
            return pool;
        }

        synchronized void replace(final PoolEngine e) {
            this.engine = e;
        }

        synchronized PoolEngine engineForStreamThread() {
            return engine;
        }

        /** The placer applied the journal entry at {@code offset} (public for the view benchmark's placer loop). */
        public void advanced(final long offset) {
            journalOffset = offset;
        }

        /** Runs {@code read} on the live engine under the pool's lock, which the placer holds while it applies. */
        public synchronized <T> T read(final Function<PoolEngine, T> read) {
            return read.apply(engine);
        }

        /** Journal entries this instance's restore re-applied after the pool's last snapshot. */
        public int restoredEntries() {
            return restoredEntries;
        }

        /** The journal offset of the last entry the placer applied to this pool (-1: none yet). */
        public long journalOffset() {
            return journalOffset;
        }
    }

    private final Map<String, Handle> byPool = new ConcurrentHashMap<>();

    /** A pool the calling thread now drives (the placer; public for the view benchmark's placer loop). */
    public Handle register(final String pool, final PoolEngine engine) {
        return register(pool, engine, new UnflushedHistory(), 0);
    }

    /**
     * A pool the calling thread now drives, with the histories its restore decided again after re-applying
     * {@code restoredEntries} journal entries after its snapshot.
     */
    Handle register(final String pool, final PoolEngine engine, final UnflushedHistory history,
                    final int restoredEntries) {
        final Handle h = new Handle(pool, engine, history, restoredEntries);
        byPool.put(pool, h);
        return h;
    }

    void unregister(final String pool, final Handle h) {
        byPool.remove(pool, h);
    }

    public Optional<Handle> pool(final String pool) {
        return Optional.ofNullable(byPool.get(pool));
    }

    /**
     * Nodes the pool's live engine knows now (0 while this instance has no engine for it). Inventory and jobs
     * come on different topics, so whoever sends both and needs the jobs judged against the whole pool (a test,
     * a benchmark) waits for this first.
     */
    public int nodesKnown(final String pool) {
        return pool(pool).map(h -> h.read(e -> e.nodes().size())).orElse(0);
    }

    public List<Handle> all() {
        return byPool.values().stream().sorted((a, b) -> a.pool().compareTo(b.pool())).toList();
    }
}
