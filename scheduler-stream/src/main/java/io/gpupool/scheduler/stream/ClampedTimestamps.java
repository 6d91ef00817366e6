package io.gpupool.scheduler.stream;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.TimestampExtractor;
import org.slf4j.LoggerFactory;

/**
 * Pool time that no client can move. Stage 1 stamps every journal entry with its input record's
 * time, and the engine's clock is the largest entry time it has seen; a producer whose clock runs
 * ahead would otherwise move the whole pool's clock (telemetry of every other node looks stale,
 * healthy jobs are evicted). So an input record's time is taken as written, but never later than
 * this scheduler's wall clock plus {@code maxAheadMs}; a record stamped later (or with no valid
 * time) is journaled at that bound, and its own time travels in a header into the journal entry's
 * source as evidence. A record from the past keeps its time: the engine's clock never goes back.
 * Stage 1 is the sequencer, so reading a clock here is allowed; the engine still reads none, and a
 * replay of the journal gives the same decisions whatever the clock says then.
 */
final class ClampedTimestamps implements TimestampExtractor {
    /** Header with the record's own time (ms) when it was clamped. */
    static final String ORIGINAL = "gpupool.clock.original-ms";

    private static final ThrottledWarnings WARN = new ThrottledWarnings(
            LoggerFactory.getLogger(ClampedTimestamps.class));

    private final long maxAheadMs;
    private final SchedulerMetrics metrics;

    ClampedTimestamps(final long maxAheadMs, final SchedulerMetrics metrics) {
        if (maxAheadMs < 0) {
            throw new IllegalArgumentException("the allowed clock skew must not be negative, got " + maxAheadMs + " ms");
        }
        this.maxAheadMs = maxAheadMs;
        this.metrics = metrics;
    }

    @Override
    public long extract(final ConsumerRecord<Object, Object> record, final long partitionTime) {
        record.headers().remove(ORIGINAL); // only this extractor says what a record's own time was
        final long written = record.timestamp();
        final long now = System.currentTimeMillis();
        final long latest = now > Long.MAX_VALUE - maxAheadMs ? Long.MAX_VALUE : now + maxAheadMs;
        if (written >= 0 && written <= latest) {
            return written;
        }
        record.headers().add(ORIGINAL, Long.toString(written).getBytes(StandardCharsets.UTF_8));
        metrics.clockClamped(record.topic(), written < 0 ? "invalid" : "ahead");
        WARN.warn("clock", "{} {}@{}: record time {} is {} this scheduler's clock allows (now + {} ms); journaled at {}",
                record.topic(), record.partition(), record.offset(), written, written < 0 ? "not a time" : "later than",
                maxAheadMs, written < 0 ? now : latest);
        return written < 0 ? now : latest;
    }

    /** The time a record was written with when it was clamped, or null when it was not. */
    static Long original(final Headers headers) {
        final org.apache.kafka.common.header.Header h = headers.lastHeader(ORIGINAL);
        if (h == null || h.value() == null) {
            return null;
        }
        try {
            return Long.parseLong(new String(h.value(), StandardCharsets.UTF_8));
        } catch (final NumberFormatException e) {
            return null;
        }
    }
}
