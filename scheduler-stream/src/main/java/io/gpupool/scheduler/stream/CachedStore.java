package io.gpupool.scheduler.stream;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A state store's point reads and writes with its most recently used keys kept in memory: a get of a
 * key read or written lately costs no store call, also when the store has no value for it (a new job
 * id is looked up several times before it is taken). Writes go to the store first, so the store is
 * always current and range reads go to it directly.
 *
 * <p>Only what this object read or wrote is kept, so it must be made anew whenever the store may have
 * changed under it: in the processor's {@code init}, which Streams calls again after it restored a
 * revived task's stores from their changelogs. Which keys are kept (least recently used out first)
 * changes only how many calls reach the store, never a value read.
 */
final class CachedStore<V> {
    /** Keys kept by default: a few per job, for the jobs of a task's recent requests (some MB at most). */
    static final int KEYS = 65_536;
    /** Kept for a key the store has no value for. */
    private static final Object ABSENT = new Object();

    private final KeyValueStore<String, V> store;
    private final Map<String, Object> recent;

    CachedStore(final KeyValueStore<String, V> store) {
        this(store, KEYS);
    }

    CachedStore(final KeyValueStore<String, V> store, final int keys) {
        this.store = store;
        this.recent = new LinkedHashMap<>(1_024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(final Map.Entry<String, Object> eldest) {
                return size() > keys;
            }
        };
    }

    /** The store's value of the key; null when it has none. */
    @SuppressWarnings("unchecked")
    V get(final String key) {
        final Object kept = recent.get(key);
        if (kept != null) {
            return kept == ABSENT ? null : (V) kept;
        }
        final V value = store.get(key);
        recent.put(key, value == null ? ABSENT : value);
        return value;
    }

    void put(final String key, final V value) {
        store.put(key, value);
        recent.put(key, value == null ? ABSENT : value); // a null put is a delete in Streams
    }

    void delete(final String key) {
        store.delete(key);
        recent.put(key, ABSENT);
    }

    /**
     * A write of a key that is not worth keeping (one read by range only): it takes no place from the keys that are
     * read by key, and a copy kept from before goes.
     */
    void putUnkept(final String key, final V value) {
        store.put(key, value);
        recent.remove(key);
    }

    /** A delete of a key that is not worth keeping; see {@link #putUnkept}. */
    void deleteUnkept(final String key) {
        store.delete(key);
        recent.remove(key);
    }

    /** Keys kept now (for tests). */
    int kept() {
        return recent.size();
    }
}
