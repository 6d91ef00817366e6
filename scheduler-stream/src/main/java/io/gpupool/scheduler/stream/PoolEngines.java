package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.PoolEngine;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The engines this instance owns, by pool, shared between the stream threads that drive them and the
 * query and metrics threads that read them. An engine is single-threaded: every access holds the
 * pool's lock (uncontended on the hot path, so it costs next to nothing).
 */
public final class PoolEngines {
    /** One pool's engine and the journal position it has reached. */
    public static final class Handle {
        private final String pool;
        private PoolEngine engine;
        private long journalOffset = -1;

        Handle(final String pool, final PoolEngine engine) {
            this.pool = pool;
            this.engine = engine;
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

        synchronized void advanced(final long offset) {
            journalOffset = offset;
        }

        /** Runs {@code read} on the engine under the pool's lock. */
        public synchronized <T> T read(final Function<PoolEngine, T> read) {
            return read.apply(engine);
        }

        public synchronized long journalOffset() {
            return journalOffset;
        }
    }

    private final Map<String, Handle> byPool = new ConcurrentHashMap<>();

    Handle register(final String pool, final PoolEngine engine) {
        final Handle h = new Handle(pool, engine);
        byPool.put(pool, h);
        return h;
    }

    void unregister(final String pool, final Handle h) {
        byPool.remove(pool, h);
    }

    public Optional<Handle> pool(final String pool) {
        return Optional.ofNullable(byPool.get(pool));
    }

    public List<Handle> all() {
        return byPool.values().stream().sorted((a, b) -> a.pool().compareTo(b.pool())).toList();
    }
}
