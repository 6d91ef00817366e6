package io.gpupool.scheduler.stream;

import io.gpupool.avro.EngineSettings;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.ShedSubmit;
import io.gpupool.avro.SourceRef;
import io.gpupool.avro.Tick;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** Builds journal records: key = pool, value = JournalEntry naming the input it came from. */
final class Journal {
    static final String SINK = "journal-sink";
    static final String CLOCK = "clock";

    private Journal() {
    }

    static Record<Object, Object> entry(final String pool, final long timestampMs, final Object payload,
                                        final Record<byte[], byte[]> cause, final RecordMetadata where) {
        return entry(pool, timestampMs, payload, cause, where, null);
    }

    /** @param tenant the tenant whose job topic the record came from ({@link io.gpupool.avro.SourceRef#getTenant}), or null */
    static Record<Object, Object> entry(final String pool, final long timestampMs, final Object payload,
                                        final Record<byte[], byte[]> cause, final RecordMetadata where, final String tenant) {
        final SourceRef source = where == null ? null : SourceRef.newBuilder()
                .setTopic(where.topic())
                .setPartition(where.partition())
                .setOffset(where.offset())
                // the time the record was written with, also when stage 1 clamped it (evidence of a fast clock)
                .setTimestamp(Instant.ofEpochMilli(writtenAt(cause)))
                .setKey(cause.key() == null ? null : new String(cause.key(), StandardCharsets.UTF_8))
                .setTenant(tenant)
                .build();
        final JournalEntry e = JournalEntry.newBuilder().setPool(pool).setTimestamp(Instant.ofEpochMilli(timestampMs))
                .setSource(source).setPayload(payload).build();
        return new Record<>(pool, e, timestampMs);
    }

    /** A submit's entry ({@link #entry}) marked shed by stage 1: the placer rejects it OVERLOADED. */
    static Record<Object, Object> shed(final Record<Object, Object> submit, final ShedSubmit shed) {
        ((JournalEntry) submit.value()).setShed(shed);
        return submit;
    }

    private static long writtenAt(final Record<byte[], byte[]> cause) {
        final Long original = ClampedTimestamps.original(cause.headers());
        return original != null ? original : cause.timestamp();
    }

    /** The engine settings a pool runs with from here on (see {@link JournalWriter}); no source: the scheduler's own. */
    static Record<Object, Object> settings(final String pool, final long timestampMs, final SortedMap<String, String> settings) {
        final JournalEntry e = JournalEntry.newBuilder().setPool(pool).setTimestamp(Instant.ofEpochMilli(timestampMs))
                .setSource(null).setPayload(EngineSettings.newBuilder().setSettings(new TreeMap<>(settings)).build()).build();
        return new Record<>(pool, e, timestampMs);
    }

    static Record<Object, Object> clockTick(final String pool, final long timestampMs) {
        final JournalEntry e = JournalEntry.newBuilder().setPool(pool).setTimestamp(Instant.ofEpochMilli(timestampMs)).setSource(null)
                .setPayload(Tick.newBuilder().setReason(CLOCK).build()).build();
        return new Record<>(pool, e, timestampMs);
    }
}
