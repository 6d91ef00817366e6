package io.gpupool.scheduler.stream;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where a job record was first written (topic, partition, offset). Stage 1 moves job commands and
 * events through a repartition by job id; the record carries its origin in headers across that hop,
 * so journal entries and dead letters name the record the user wrote, not the internal copy.
 */
record Origin(String topic, int partition, long offset) implements RecordMetadata {
    static final String TOPIC = "gpupool.origin.topic";
    static final String PARTITION = "gpupool.origin.partition";
    static final String OFFSET = "gpupool.origin.offset";
    /** The key the record was written with (absent: it had none); the copy is keyed by the job id. */
    static final String KEY = "gpupool.origin.key";

    /** The origin a record carries, or where it is now when it carries none. */
    static RecordMetadata of(final Headers headers, final RecordMetadata here) {
        final String topic = text(headers, TOPIC);
        if (topic == null) {
            return here;
        }
        try {
            return new Origin(topic, Integer.parseInt(text(headers, PARTITION)), Long.parseLong(text(headers, OFFSET)));
        } catch (final NumberFormatException | NullPointerException e) {
            return here; // headers written by someone else: the copy's own position is still true
        }
    }

    /** The headers with this origin and the record's own key added (over any origin already there). */
    Headers addTo(final Headers original, final byte[] key) {
        final Headers h = without(original);
        h.add(TOPIC, utf8(topic));
        h.add(PARTITION, utf8(Integer.toString(partition)));
        h.add(OFFSET, utf8(Long.toString(offset)));
        if (key != null) {
            h.add(KEY, key);
        }
        return h;
    }

    /** The key the record was first written with: from the header when it crossed the repartition. */
    static byte[] key(final Headers headers, final byte[] here) {
        if (headers.lastHeader(TOPIC) == null) {
            return here; // not a copy
        }
        final Header k = headers.lastHeader(KEY);
        return k == null ? null : k.value();
    }

    /** A copy of the headers without the origin ones: what the user wrote. */
    static Headers without(final Headers original) {
        final Headers h = new RecordHeaders();
        for (final Header x : original) {
            if (!x.key().equals(TOPIC) && !x.key().equals(PARTITION) && !x.key().equals(OFFSET) && !x.key().equals(KEY)) {
                h.add(x);
            }
        }
        return h;
    }

    private static String text(final Headers headers, final String name) {
        final Header h = headers.lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
