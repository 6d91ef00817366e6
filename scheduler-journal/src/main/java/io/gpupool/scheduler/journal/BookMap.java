package io.gpupool.scheduler.journal;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * The sorted key-value map a {@link KeyedJobBook} lives in: the placer's state store, or a TreeMap in
 * an offline replay. Keys are ordered as their UTF-8 bytes (the store's order; for the ASCII keys of
 * the book also String order).
 */
public interface BookMap {
    byte[] get(String key);

    void put(String key, byte[] value);

    void delete(String key);

    /** The keys from {@code from} to {@code to}, both inclusive, in key order; a list, so the caller may delete. */
    List<String> keys(String from, String to);

    /** The first key from {@code from} to {@code to}, both inclusive, or null when there is none. */
    String firstKey(String from, String to);

    /** Every entry, in key order. */
    void forEach(BiConsumer<String, byte[]> each);

    static BookMap inMemory() {
        final TreeMap<String, byte[]> m = new TreeMap<>();
        return new BookMap() {
            @Override
            public byte[] get(final String key) {
                return m.get(key);
            }

            @Override
            public void put(final String key, final byte[] value) {
                m.put(key, value);
            }

            @Override
            public void delete(final String key) {
                m.remove(key);
            }

            @Override
            public List<String> keys(final String from, final String to) {
                return new ArrayList<>(m.subMap(from, true, to, true).keySet());
            }

            @Override
            public String firstKey(final String from, final String to) {
                final String k = m.ceilingKey(from);
                return k == null || k.compareTo(to) > 0 ? null : k;
            }

            @Override
            public void forEach(final BiConsumer<String, byte[]> each) {
                m.forEach(each);
            }
        };
    }
}
