package io.gpupool.scheduler.stream;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.ByteUtils;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where a job record was first written (topic, partition, offset). Stage 1 moves job commands and
 * events through a repartition by job id; the record carries its origin in one header across that hop,
 * so journal entries and dead letters name the record the user wrote, not the internal copy.
 *
 * <p>The header is binary and small because every job record crosses the hop: a format byte, how the
 * written key is kept, the partition and offset as varints, the topic, and the written key only when it
 * differs from the copy's (the job id). The four text headers of earlier versions are still read, so
 * records a scheduler of before wrote onto the repartition topic keep their origin.
 */
record Origin(String topic, int partition, long offset) implements RecordMetadata {
    /** The header of this version. */
    static final String HEADER = "gpupool.origin";
    private static final byte FORMAT = 1;
    private static final byte NO_KEY = 0;
    private static final byte KEY_OF_COPY = 1;
    private static final byte KEY_FOLLOWS = 2;

    /** The text headers of earlier versions, read but no longer written. */
    static final String TOPIC = "gpupool.origin.topic";
    static final String PARTITION = "gpupool.origin.partition";
    static final String OFFSET = "gpupool.origin.offset";
    static final String KEY = "gpupool.origin.key";

    /** What a copy's origin header says: the origin and the key the record was written with. */
    private record Carried(Origin origin, byte[] writtenKey) {
    }

    /** The origin a record carries, or where it is now when it carries none (or one that cannot be read). */
    static RecordMetadata of(final Headers headers, final RecordMetadata here) {
        final Carried c = carried(headers, null);
        return c == null ? here : c.origin();
    }

    /** Whether the record is a copy made by the hop (it carries an origin, readable or not). */
    static boolean isCopy(final Headers headers) {
        return headers.lastHeader(HEADER) != null || headers.lastHeader(TOPIC) != null;
    }

    /**
     * The headers without any origin and with this one, carrying {@code writtenKey} (null: the record had none);
     * {@code copyKey} is the key the copy gets, which is not repeated in the header.
     */
    Headers addTo(final Headers original, final byte[] writtenKey, final byte[] copyKey) {
        final byte keyKind = writtenKey == null ? NO_KEY : Arrays.equals(writtenKey, copyKey) ? KEY_OF_COPY : KEY_FOLLOWS;
        final byte[] topicBytes = topic.getBytes(StandardCharsets.UTF_8);
        final int size = 2 + ByteUtils.sizeOfVarint(partition) + ByteUtils.sizeOfVarlong(offset)
                + ByteUtils.sizeOfVarint(topicBytes.length) + topicBytes.length
                + (keyKind == KEY_FOLLOWS ? writtenKey.length : 0);
        final ByteBuffer b = ByteBuffer.allocate(size).put(FORMAT).put(keyKind);
        ByteUtils.writeVarint(partition, b);
        ByteUtils.writeVarlong(offset, b);
        ByteUtils.writeVarint(topicBytes.length, b);
        b.put(topicBytes);
        if (keyKind == KEY_FOLLOWS) {
            b.put(writtenKey);
        }
        final Headers h = without(original);
        h.add(HEADER, b.array());
        return h;
    }

    /** The key the record was first written with: from the origin header when it crossed the repartition. */
    static byte[] key(final Headers headers, final byte[] here) {
        if (!isCopy(headers)) {
            return here;
        }
        final Carried c = carried(headers, here);
        return c == null ? here : c.writtenKey();
    }

    /** A copy of the headers without the origin ones (of any version): what the user wrote. */
    static Headers without(final Headers original) {
        final Headers h = new RecordHeaders();
        for (final Header x : original) {
            if (!x.key().equals(HEADER) && !x.key().equals(TOPIC) && !x.key().equals(PARTITION)
                    && !x.key().equals(OFFSET) && !x.key().equals(KEY)) {
                h.add(x);
            }
        }
        return h;
    }

    /** The origin header read, or null when there is none or it cannot be read (only this application writes it). */
    private static Carried carried(final Headers headers, final byte[] copyKey) {
        final Header binary = headers.lastHeader(HEADER);
        if (binary != null) {
            return binary.value() == null ? null : decode(ByteBuffer.wrap(binary.value()), copyKey);
        }
        final String topic = text(headers, TOPIC);
        if (topic == null) {
            return null;
        }
        try {
            final Header k = headers.lastHeader(KEY);
            return new Carried(new Origin(topic, Integer.parseInt(text(headers, PARTITION)),
                    Long.parseLong(text(headers, OFFSET))), k == null ? null : k.value());
        } catch (final NumberFormatException | NullPointerException e) {
            return null;
        }
    }

    private static Carried decode(final ByteBuffer b, final byte[] copyKey) {
        try {
            if (b.get() != FORMAT) {
                return null;
            }
            final byte keyKind = b.get();
            final int partition = ByteUtils.readVarint(b);
            final long offset = ByteUtils.readVarlong(b);
            final int topicLength = ByteUtils.readVarint(b);
            if (partition < 0 || offset < 0 || topicLength <= 0 || topicLength > b.remaining()) {
                return null;
            }
            final byte[] topic = new byte[topicLength];
            b.get(topic);
            final byte[] writtenKey = switch (keyKind) {
                case NO_KEY -> null;
                case KEY_OF_COPY -> copyKey;
                case KEY_FOLLOWS -> {
                    final byte[] k = new byte[b.remaining()];
                    b.get(k);
                    yield k;
                }
                default -> throw new IllegalArgumentException("unknown key kind " + keyKind);
            };
            if (keyKind != KEY_FOLLOWS && b.hasRemaining()) {
                return null;
            }
            return new Carried(new Origin(new String(topic, StandardCharsets.UTF_8), partition, offset), writtenKey);
        } catch (final RuntimeException e) {
            return null; // short or malformed: the copy's own position is still true
        }
    }

    private static String text(final Headers headers, final String name) {
        final Header h = headers.lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
