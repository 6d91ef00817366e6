package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import io.gpupool.scheduler.journal.BookChanges;
import io.gpupool.scheduler.journal.JobBook;
import io.gpupool.scheduler.journal.JobRecord;
import io.gpupool.scheduler.journal.KeyedJobBook;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

class CachedStoreTest {
    /** The calls that reached the store, by method name. */
    private final List<String> calls = new ArrayList<>();

    /** An in-memory store that records each call made to it. */
    @SuppressWarnings("unchecked")
    private <V> KeyValueStore<String, V> store(final org.apache.kafka.common.serialization.Serde<V> values) {
        final KeyValueStore<String, V> real = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("s"),
                Serdes.String(), values).withLoggingDisabled().withCachingDisabled().build();
        real.init(new MockProcessorContext<>().getStateStoreContext(), real);
        return (KeyValueStore<String, V>) Proxy.newProxyInstance(KeyValueStore.class.getClassLoader(),
                new Class<?>[] {KeyValueStore.class}, (proxy, method, args) -> {
                    calls.add(method.getName());
                    try {
                        return method.invoke(real, args);
                    } catch (final InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private long calls(final String method) {
        return calls.stream().filter(method::equals).count();
    }

    @Test
    void aKeyReadOrWrittenLatelyIsReadWithoutAStoreCall() {
        final KeyValueStore<String, String> store = store(Serdes.String());
        store.put("j0", "p0");
        final CachedStore<String> cached = new CachedStore<>(store);
        calls.clear();
        assertThat(cached.get("j0")).isEqualTo("p0");
        assertThat(cached.get("j0")).isEqualTo("p0");
        cached.put("j1", "p1");
        assertThat(cached.get("j1")).isEqualTo("p1");
        assertThat(calls).containsExactly("get", "put");
        assertThat(store.get("j1")).as("written through").isEqualTo("p1");
    }

    @Test
    void aKeyTheStoreHasNoValueForIsRememberedAsAbsent() {
        final CachedStore<String> cached = new CachedStore<>(store(Serdes.String()));
        assertThat(cached.get("new")).isNull();
        assertThat(cached.get("new")).isNull();
        assertThat(calls("get")).isEqualTo(1);
        cached.put("new", "p");
        assertThat(cached.get("new")).as("a put replaces the absence").isEqualTo("p");
        assertThat(calls("get")).isEqualTo(1);
    }

    @Test
    void aDeletedKeyIsAbsentWithoutAStoreCall() {
        final KeyValueStore<String, String> store = store(Serdes.String());
        final CachedStore<String> cached = new CachedStore<>(store);
        cached.put("j", "p");
        cached.delete("j");
        assertThat(cached.get("j")).isNull();
        assertThat(calls).containsExactly("put", "delete");
        assertThat(store.get("j")).isNull();
        cached.put("k", null);
        assertThat(cached.get("k")).as("a null put deletes").isNull();
        assertThat(store.get("k")).isNull();
    }

    @Test
    void atMostTheBoundIsKeptAndTheLeastRecentlyUsedGoesFirst() {
        final CachedStore<String> cached = new CachedStore<>(store(Serdes.String()), 3);
        cached.put("a", "1");
        cached.put("b", "2");
        cached.put("c", "3");
        assertThat(cached.get("a")).isEqualTo("1"); // a is now the most recent: b goes next
        cached.put("d", "4");
        assertThat(cached.kept()).isEqualTo(3);
        calls.clear();
        assertThat(cached.get("a")).isEqualTo("1");
        assertThat(cached.get("c")).isEqualTo("3");
        assertThat(calls).as("a and c kept").isEmpty();
        assertThat(cached.get("b")).as("evicted, read from the store").isEqualTo("2");
        assertThat(calls).containsExactly("get");
    }

    @Test
    void aWriteNotWorthKeepingTakesNoPlaceAndLeavesNoStaleCopy() {
        final KeyValueStore<String, String> store = store(Serdes.String());
        final CachedStore<String> cached = new CachedStore<>(store, 3);
        cached.put("a", "1");
        cached.putUnkept("x", "9");
        assertThat(cached.kept()).as("only a").isEqualTo(1);
        assertThat(store.get("x")).as("written through").isEqualTo("9");
        calls.clear();
        assertThat(cached.get("x")).isEqualTo("9");
        assertThat(calls).as("read from the store, and kept from then on").containsExactly("get");
        cached.putUnkept("x", "10");
        assertThat(cached.get("x")).as("the kept copy went with the write").isEqualTo("10");
        cached.deleteUnkept("x");
        assertThat(cached.get("x")).isNull();
        assertThat(store.get("x")).isNull();
    }

    @Test
    void everyReadEqualsTheStoresValueWhateverWasEvicted() {
        final KeyValueStore<String, byte[]> store = store(Serdes.ByteArray());
        final CachedStore<byte[]> cached = new CachedStore<>(store, 4);
        final Map<String, byte[]> expected = new HashMap<>();
        final Random random = new Random(17);
        int reads = 0;
        for (int i = 0; i < 20_000; i++) {
            final String key = "k" + random.nextInt(10);
            switch (random.nextInt(4)) {
                case 0 -> {
                    final byte[] value = {(byte) i, (byte) (i >> 8)};
                    cached.put(key, value);
                    expected.put(key, value);
                }
                case 1 -> {
                    cached.delete(key);
                    expected.remove(key);
                }
                default -> {
                    reads++;
                    assertThat(cached.get(key)).as("step " + i + ", " + key).isEqualTo(expected.get(key));
                }
            }
            assertThat(cached.kept()).isLessThanOrEqualTo(4);
        }
        assertThat(calls("get")).as("some reads missed, most hit").isBetween(reads / 10L, reads * 9L / 10);
        for (int k = 0; k < 10; k++) {
            assertThat(store.get("k" + k)).as("the store holds every write").isEqualTo(expected.get("k" + k));
        }
    }

    @Test
    void theBookMapReadsRangesFromTheStoreWhichHoldsEveryWrite() {
        final KeyValueStore<String, byte[]> store = store(Serdes.ByteArray());
        final StoreBookMap book = new StoreBookMap(store);
        book.put("b", new byte[] {2});
        book.put("a", new byte[] {1});
        book.put("c", new byte[] {3});
        book.delete("b");
        assertThat(book.keys("a", "z")).containsExactly("a", "c");
        assertThat(book.firstKey("b", "z")).isEqualTo("c");
        final List<String> all = new ArrayList<>();
        book.forEach((k, v) -> all.add(k + v[0]));
        assertThat(all).containsExactly("a1", "c3");
        calls.clear();
        assertThat(book.get("a")).containsExactly(1);
        assertThat(book.get("b")).isNull();
        assertThat(calls).as("written lately: no store call").isEmpty();
    }

    @Test
    void theBooksOwnKeysAreWrittenPastTheCacheSoThatJobRecordsStayKeptLonger() {
        final KeyValueStore<String, byte[]> store = store(Serdes.ByteArray());
        final KeyedJobBook book = new KeyedJobBook(new StoreBookMap(store), BookChanges.NONE, true);
        final int jobs = CachedStore.KEYS * 3 / 4; // more than half the cache: their index keys would have pushed some out
        for (int i = 0; i < jobs; i++) {
            book.put("j" + i, new JobRecord(i, 1, "c-j" + i, null));
            book.finished("j" + i, new JobBook.Expiry("p1", 5_000 + i, i));
        }
        calls.clear();
        for (int i = 0; i < jobs; i++) {
            assertThat(book.get("j" + i)).isNotNull();
        }
        assertThat(calls("get")).as("every record still kept").isZero();
        assertThat(book.due("p1", 5_000)).as("the index, read by range from the store").containsExactly("j0");
    }

    @Test
    void aJobsWholeLifeInTheBookCostsOneStoreReadAndEightWrites() {
        final KeyValueStore<String, byte[]> store = store(Serdes.ByteArray());
        final KeyedJobBook book = new KeyedJobBook(new StoreBookMap(store), BookChanges.NONE, true);
        calls.clear();
        assertThat(book.get("j")).isNull(); // the submit's duplicate check: the one read
        book.put("j", new JobRecord(0, 1, "c-j", null));
        assertThat(book.expiry("j")).as("not finished: read from the record, cached").isNull();
        book.finished("j", new JobBook.Expiry("p1", 5_000, 2));
        assertThat(book.expiry("j")).isEqualTo(new JobBook.Expiry("p1", 5_000, 2));
        assertThat(book.due("p1", 5_000)).containsExactly("j"); // two index reads (range), as before
        book.expire("j", 3);
        assertThat(book.get("j")).isNull();
        book.purgeExpiredBefore(4);
        assertThat(calls("get")).isEqualTo(1);
        // taken 1, finished 2 (the record with its expiry, the index), expired 3 (the record marked, the index entry,
        // the purge key), purged 2
        assertThat(calls("put") + calls("delete")).isEqualTo(8);
        assertThat(store.get("j")).as("purged").isNull();
    }

    @Test
    void aColdBookReadsTheRecordOnceForEveryQuestionAboutIt() {
        final KeyValueStore<String, byte[]> store = store(Serdes.ByteArray());
        new KeyedJobBook(new StoreBookMap(store), BookChanges.NONE, true).put("j", new JobRecord(0, 1, "c-j", null));
        final KeyedJobBook later = new KeyedJobBook(new StoreBookMap(store), BookChanges.NONE, true); // a cold cache
        calls.clear();
        assertThat(later.get("j")).isNotNull();
        assertThat(later.expiry("j")).isNull();
        later.finished("j", new JobBook.Expiry("p1", 5_000, 2));
        assertThat(later.expiry("j")).isEqualTo(new JobBook.Expiry("p1", 5_000, 2));
        assertThat(calls("get")).isEqualTo(1);
    }
}
