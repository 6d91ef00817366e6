package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.journal.BookMap;
import io.gpupool.scheduler.journal.KeyedJobBook;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The placer's job store ({@link PlacerProcessor#JOB_STORE}) as the sorted map its job book lives in.
 * The book reads a job's keys several times per journal entry, so point reads go through a
 * {@link CachedStore}: made with this map, which must therefore be made anew in the processor's init.
 * The book's own keys ({@link KeyedJobBook#isBookKey}: the expiry index, purge keys) are written past the
 * cache: they are read by range, and kept they would halve how long a job's record stays in it (under
 * overload a job's end comes seconds after its submit, and a record no longer kept is a read of RocksDB).
 */
final class StoreBookMap implements BookMap {
    private final CachedStore<byte[]> cached;
    private final KeyValueStore<String, byte[]> store;

    StoreBookMap(final KeyValueStore<String, byte[]> store) {
        this.cached = new CachedStore<>(store);
        this.store = store;
    }

    @Override
    public byte[] get(final String key) {
        return cached.get(key);
    }

    @Override
    public void put(final String key, final byte[] value) {
        if (KeyedJobBook.isBookKey(key)) {
            cached.putUnkept(key, value);
        } else {
            cached.put(key, value);
        }
    }

    @Override
    public void delete(final String key) {
        if (KeyedJobBook.isBookKey(key)) {
            cached.deleteUnkept(key);
        } else {
            cached.delete(key);
        }
    }

    @Override
    public List<String> keys(final String from, final String to) {
        final List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = store.range(from, to)) {
            while (it.hasNext()) {
                keys.add(it.next().key);
            }
        }
        return keys;
    }

    @Override
    public String firstKey(final String from, final String to) {
        try (KeyValueIterator<String, byte[]> it = store.range(from, to)) {
            return it.hasNext() ? it.next().key : null;
        }
    }

    @Override
    public void forEach(final BiConsumer<String, byte[]> each) {
        try (KeyValueIterator<String, byte[]> it = store.all()) {
            while (it.hasNext()) {
                final KeyValue<String, byte[]> kv = it.next();
                each.accept(kv.key, kv.value);
            }
        }
    }
}
