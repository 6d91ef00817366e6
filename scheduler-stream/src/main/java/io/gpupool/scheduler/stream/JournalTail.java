package io.gpupool.scheduler.stream;

import io.gpupool.avro.JournalEntry;
import io.gpupool.serde.RecordDecodeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The entries each stored pool needs re-applied on top of its snapshot, read from the journal partition of the
 * task: every entry of the pool after the offset its snapshot covers, up to the committed offset. One read serves
 * all pools of the partition. An entry that cannot be decoded is passed over: it was dead-lettered when it was
 * first read and never applied. A pool stored in the form of before brings its tail with it and is left as it is.
 */
final class JournalTail {
    private JournalTail() {
    }

    /** The pools with their tails, and the committed offset the read stopped at (-1 when there was nothing to read). */
    record Read(List<EngineStore.Stored> pools, long committed) {
    }

    static Read of(final List<EngineStore.Stored> stored, final int partition, final JournalReader reader,
                   final Deserializer<JournalEntry> journal) {
        final Map<String, EngineStore.Stored> byPool = new TreeMap<>();
        long from = Long.MAX_VALUE;
        for (final EngineStore.Stored s : stored) {
            if (!s.legacy()) {
                byPool.put(s.pool(), s);
                from = Math.min(from, s.covered() + 1);
            }
        }
        if (byPool.isEmpty()) {
            return new Read(stored, -1);
        }
        final Map<String, List<EngineStore.TailEntry>> tails = new TreeMap<>();
        final long committed = reader.readProcessed(partition, from, (offset, value) -> {
            final JournalEntry e = decode(journal, value);
            final EngineStore.Stored s = e == null ? null : byPool.get(e.getPool());
            if (s != null && offset > s.covered()) {
                tails.computeIfAbsent(s.pool(), p -> new ArrayList<>()).add(new EngineStore.TailEntry(partition, offset,
                        e.getTimestamp().toEpochMilli(), value));
            }
        });
        final List<EngineStore.Stored> out = new ArrayList<>();
        for (final EngineStore.Stored s : stored) {
            out.add(s.legacy() ? s : s.withTail(tails.getOrDefault(s.pool(), List.of())));
        }
        return new Read(out, committed);
    }

    private static JournalEntry decode(final Deserializer<JournalEntry> journal, final byte[] value) {
        if (value == null) {
            return null;
        }
        try {
            return journal.deserialize("journal-tail", value);
        } catch (final RecordDecodeException e) {
            if (e.retriable()) {
                throw e; // the registry is down: the restore must wait for it, not pass entries over
            }
            return null;
        } catch (final RuntimeException e) {
            return null;
        }
    }
}
