package io.gpupool.scheduler.journal;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The job book's retention: expiry in time order per pool, the book as of an entry for a restore, the purge. */
class KeyedJobBookTest {

    private static JobRecord record(final long offset, final String commandId) {
        return new JobRecord(0, offset, commandId, null);
    }

    @Test
    void finishedRecordsComeDueInExpiryOrderPerPool() {
        final KeyedJobBook book = new KeyedJobBook(BookMap.inMemory(), BookChanges.NONE, false);
        book.put("a", record(1, "c-a"));
        book.put("b", record(2, "c-b"));
        book.put("c", record(3, "c-c"));
        book.finished("b", new JobBook.Expiry("p1", 5_000, 4));
        book.finished("a", new JobBook.Expiry("p1", 7_000, 5));
        book.finished("c", new JobBook.Expiry("p10", 1_000, 6)); // another pool: never due in p1's time
        assertThat(book.due("p1", 4_999)).isEmpty();
        assertThat(book.due("p1", 7_000)).containsExactly("b", "a");
        book.expire("b", 8);
        book.expire("a", 8);
        assertThat(book.get("a")).isNull();
        assertThat(book.expiry("a")).isNull();
        assertThat(book.due("p1", Long.MAX_VALUE)).isEmpty();
        assertThat(book.due("p10", 1_000)).containsExactly("c");
    }

    @Test
    void aRestoreReadsTheBookAsTheEntryFoundItUntilThePurge() {
        final KeyedJobBook book = new KeyedJobBook(BookMap.inMemory(), BookChanges.NONE, true);
        book.put("x", record(10, "first"));
        book.finished("x", new JobBook.Expiry("p1", 100, 11));
        book.expire("x", 20);
        book.put("x", record(25, "second"));
        assertThat(book.asOf("x", 9)).as("before it was taken").isNull();
        assertThat(book.asOf("x", 15).commandId()).as("taken, not yet expired").isEqualTo("first");
        assertThat(book.asOf("x", 22)).as("expired, not yet taken again").isNull();
        assertThat(book.asOf("x", 30).commandId()).isEqualTo("second");
        book.purgeExpiredBefore(20);
        assertThat(book.asOf("x", 15).commandId()).as("a tail may still start at 19").isEqualTo("first");
        book.purgeExpiredBefore(21);
        assertThat(book.asOf("x", 15)).as("no tail reaches back before the expiry").isNull();
        final List<String> keys = new ArrayList<>();
        book.forEachInOrder((id, bytes) -> keys.add(id));
        assertThat(keys).containsExactly("x");
    }

    @Test
    void anExpiredRecordStaysUnderItsIdForARestoreUntilThePurge() {
        final BookMap map = BookMap.inMemory();
        final KeyedJobBook book = new KeyedJobBook(map, BookChanges.NONE, true);
        book.put("x", record(10, "first"));
        book.finished("x", new JobBook.Expiry("p1", 100, 11));
        book.expire("x", 20);
        assertThat(book.get("x")).isNull();
        assertThat(book.expiry("x")).isNull();
        assertThat(book.asOf("x", 15).commandId()).isEqualTo("first");
        assertThat(book.asOf("x", 20)).isNull();
        final List<String> inOrder = new ArrayList<>();
        book.forEachInOrder((id, bytes) -> inOrder.add(id));
        assertThat(inOrder).as("no longer in the book's snapshots").isEmpty();
        assertThat(map.keys("", "~")).containsExactly("#purgeid#0000000000000000020#x", "x");
        book.purgeExpiredBefore(21);
        assertThat(map.keys("", "~")).isEmpty();
    }

    /** A store the book wrote before its records carried their expiry: bare records and keys of their own. */
    private static BookMap legacyMap() throws Exception {
        final BookMap map = BookMap.inMemory();
        map.put("j", record(1, "c-j").toBytes());
        final java.io.ByteArrayOutputStream finished = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(finished)) {
            out.writeLong(5_000);
            out.writeLong(2);
            out.writeUTF("p1");
        }
        map.put("#finished#j", finished.toByteArray());
        map.put("#expiry#2:p1#0000000000000005000#j", new byte[0]);
        final byte[] gone = record(3, "c-k").toBytes();
        map.put("#expired#k", java.nio.ByteBuffer.allocate(8 + gone.length).putLong(6).put(gone).array());
        map.put("#purge#0000000000000000006#k", new byte[0]);
        return map;
    }

    @Test
    void aBookFromBeforeTheExpiryMovedIntoTheRecordExpiresAndPurgesAsItWas() throws Exception {
        final BookMap map = legacyMap();
        final KeyedJobBook book = new KeyedJobBook(map, BookChanges.NONE, true);
        assertThat(book.get("j").commandId()).isEqualTo("c-j");
        assertThat(book.expiry("j")).isEqualTo(new JobBook.Expiry("p1", 5_000, 2));
        assertThat(book.asOf("k", 4).commandId()).isEqualTo("c-k");
        assertThat(book.due("p1", 5_000)).containsExactly("j");
        book.expire("j", 7);
        assertThat(book.get("j")).isNull();
        assertThat(book.asOf("j", 5).commandId()).isEqualTo("c-j");
        assertThat(map.get("#finished#j")).isNull();
        book.purgeExpiredBefore(8);
        assertThat(map.keys("", "~")).isEmpty();
    }

    @Test
    void aBareRecordReplacedKeepsItsExpiryInTheNewForm() throws Exception {
        final BookMap map = legacyMap();
        final KeyedJobBook book = new KeyedJobBook(map, BookChanges.NONE, true);
        book.put("j", new JobRecord(0, 1, "c-j", null)); // a slim record filled in, say
        assertThat(map.get("#finished#j")).isNull();
        assertThat(book.expiry("j")).isEqualTo(new JobBook.Expiry("p1", 5_000, 2));
        assertThat(book.due("p1", 5_000)).containsExactly("j");
    }
}
