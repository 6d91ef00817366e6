package io.gpupool.topics;

import io.gpupool.serde.RecordDecodeException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The one layout of gpupool.dlq records, so every consumer dead-letters alike and tools can read
 * them: the original key and value bytes, the original headers, plus headers naming where the
 * record came from and why it was refused.
 */
public final class DeadLetters {
    public static final String SOURCE_TOPIC = "gpupool.dlq.source.topic";
    public static final String SOURCE_PARTITION = "gpupool.dlq.source.partition";
    public static final String SOURCE_OFFSET = "gpupool.dlq.source.offset";
    public static final String SOURCE_TIMESTAMP = "gpupool.dlq.source.timestamp";
    public static final String ERROR_CLASS = "gpupool.dlq.error.class";
    public static final String ERROR_MESSAGE = "gpupool.dlq.error.message";
    /** The {@link RecordDecodeException.Problem} when the bytes could not be decoded. */
    public static final String ERROR_PROBLEM = "gpupool.dlq.error.problem";
    /** Which consumer refused it (application id or command), for whoever reads the DLQ. */
    public static final String REFUSED_BY = "gpupool.dlq.refused.by";

    private static final int MAX_MESSAGE_CHARS = 4000;

    private DeadLetters() {
    }

    /**
     * The DLQ record for a refused input record. Its timestamp is the original one, so nothing
     * here reads the clock.
     */
    public static ProducerRecord<byte[], byte[]> of(final String dlqTopic, final ConsumerRecord<byte[], byte[]> refused,
                                                    final Throwable error, final String refusedBy) {
        final Headers headers = new RecordHeaders();
        for (final Header h : refused.headers()) {
            headers.add(h);
        }
        headers.add(SOURCE_TOPIC, utf8(refused.topic()));
        headers.add(SOURCE_PARTITION, utf8(Integer.toString(refused.partition())));
        headers.add(SOURCE_OFFSET, utf8(Long.toString(refused.offset())));
        headers.add(SOURCE_TIMESTAMP, utf8(Long.toString(refused.timestamp())));
        headers.add(ERROR_CLASS, utf8(error.getClass().getName()));
        final String message = String.valueOf(error.getMessage());
        headers.add(ERROR_MESSAGE, utf8(message.length() > MAX_MESSAGE_CHARS
                ? message.substring(0, MAX_MESSAGE_CHARS) + "..." : message));
        if (error instanceof RecordDecodeException) {
            headers.add(ERROR_PROBLEM, utf8(((RecordDecodeException) error).problem().name()));
        }
        headers.add(REFUSED_BY, utf8(refusedBy));
        return new ProducerRecord<>(dlqTopic, null, refused.timestamp() < 0 ? null : refused.timestamp(),
                refused.key(), refused.value(), headers);
    }

    /** A header's value as text, or null when absent. */
    public static String header(final Headers headers, final String name) {
        final Header h = headers.lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
