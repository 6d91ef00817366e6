package io.gpupool.scheduler.stream;

import io.gpupool.serde.RecordDecodeException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Builds the gpupool.dlq record for an input that cannot be used: the original key and bytes
 * (nothing is lost), the original headers, and headers saying where it came from and why.
 */
public final class DeadLetters {
    public static final String SINK = "dlq-sink";
    public static final String TOPIC = "gpupool.dlq.topic";
    public static final String PARTITION = "gpupool.dlq.partition";
    public static final String OFFSET = "gpupool.dlq.offset";
    public static final String ERROR_CLASS = "gpupool.dlq.error.class";
    public static final String ERROR_MESSAGE = "gpupool.dlq.error.message";

    private DeadLetters() {
    }

    static Record<Object, Object> of(final Record<byte[], byte[]> in, final RecordMetadata where, final Throwable error) {
        return of(in, where, error.getClass().getName(), message(error, where));
    }

    /**
     * The error's message; a decode error names the record's partition and offset, which its
     * deserializer, called with the topic only, could not know (it said {@code topic-?@?}).
     */
    static String message(final Throwable error, final RecordMetadata where) {
        if (error instanceof RecordDecodeException e && where != null && e.partition() < 0) {
            return e.at(where.partition(), where.offset()).getMessage();
        }
        return String.valueOf(error.getMessage());
    }

    static Record<Object, Object> of(final Record<byte[], byte[]> in, final RecordMetadata where,
                                     final String errorClass, final String message) {
        final Headers h = new RecordHeaders(in.headers().toArray());
        h.add(TOPIC, utf8(where == null ? "?" : where.topic()));
        h.add(PARTITION, utf8(where == null ? "-1" : Integer.toString(where.partition())));
        h.add(OFFSET, utf8(where == null ? "-1" : Long.toString(where.offset())));
        h.add(ERROR_CLASS, utf8(errorClass));
        h.add(ERROR_MESSAGE, utf8(message));
        return new Record<>(in.key(), in.value(), in.timestamp(), h);
    }

    /** A header's value as text, or null. */
    public static String header(final Headers headers, final String name) {
        final Header h = headers.lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
