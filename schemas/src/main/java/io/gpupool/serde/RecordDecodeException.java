package io.gpupool.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record's bytes could not be decoded. Names topic, partition and offset (when known), the
 * problem and the schema id, so the consumer can dead-letter exactly that record.
 *
 * <p>Kafka's {@code Deserializer} is called with the topic and headers only, so an exception thrown
 * from it has partition -1 and offset -1. The layers that know the position attach it:
 * {@link RecordDecoder} (for a {@code ConsumerRecord<byte[], byte[]>}, as a Streams
 * DeserializationExceptionHandler or a DLQ-aware consumer gets it) and {@link #locate} (for the
 * {@code RecordDeserializationException} a {@code KafkaConsumer} throws around it).
 */
public final class RecordDecodeException extends SerializationException {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the bytes. */
    public enum Problem {
        /** Fewer than 5 bytes: no room for magic byte and schema id. */
        TRUNCATED_HEADER,
        /** First byte is not 0: not Confluent wire format (plain JSON, plain Avro, another serde). */
        WRONG_MAGIC_BYTE,
        /** The registry has no schema with that id. */
        UNKNOWN_SCHEMA_ID,
        /**
         * The body ended before the record did, or an array/map count or a string/bytes length says
         * more than the bytes left (checked before anything is allocated for it).
         */
        TRUNCATED_BODY,
        /** The body holds bytes after the end of the record. */
        TRAILING_BYTES,
        /** The body is not a valid encoding for the writer schema (bad length, union index, enum). */
        CORRUPT_BODY,
        /** An array/map count or a string/bytes length is more than the {@link DecodeLimits} allow. */
        OVER_LIMIT,
        /** The decoder raised an Error (StackOverflowError, OutOfMemoryError) on this record. */
        DECODER_FAILED,
        /** The writer schema cannot be resolved to the reader's record type. */
        SCHEMA_MISMATCH,
        /** The registry could not be asked (down, auth). Retriable: do not dead-letter on this. */
        REGISTRY_UNAVAILABLE
    }

    private final String topic;
    private final int partition;
    private final long offset;
    private final Problem problem;
    private final int schemaId;
    private final String detail;

    public RecordDecodeException(final String topic, final int partition, final long offset, final Problem problem,
                                 final int schemaId, final String detail, final Throwable cause) {
        super(message(topic, partition, offset, problem, schemaId, detail), cause);
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.problem = problem;
        this.schemaId = schemaId;
        this.detail = detail;
    }

    private static String message(final String topic, final int partition, final long offset, final Problem problem,
                                  final int schemaId, final String detail) {
        return "cannot decode record at " + topic + "-" + (partition < 0 ? "?" : Integer.toString(partition))
                + "@" + (offset < 0 ? "?" : Long.toString(offset)) + ": " + problem
                + (schemaId >= 0 ? " (schema id " + schemaId + ")" : "") + ": " + detail;
    }

    /** The same problem, now with the record's position. */
    public RecordDecodeException at(final int newPartition, final long newOffset) {
        return new RecordDecodeException(topic, newPartition, newOffset, problem, schemaId, detail, getCause());
    }

    /**
     * Unwraps what a KafkaConsumer throws when our deserializer fails inside poll(): the consumer
     * knows the partition and offset, our exception knows the problem.
     */
    public static RecordDecodeException locate(
            final org.apache.kafka.common.errors.RecordDeserializationException e) {
        final Throwable cause = e.getCause();
        if (cause instanceof RecordDecodeException) {
            return ((RecordDecodeException) cause).at(e.topicPartition().partition(), e.offset());
        }
        return new RecordDecodeException(e.topicPartition().topic(), e.topicPartition().partition(), e.offset(),
                Problem.CORRUPT_BODY, -1, String.valueOf(e.getMessage()), e);
    }

    /**
     * For a Streams DeserializationExceptionHandler (which gets the raw record and the exception):
     * our exception with the record's position, or, for another deserializer's exception, one
     * that wraps it as CORRUPT_BODY.
     */
    public static RecordDecodeException locate(final Throwable error,
                                               final org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> record) {
        if (error instanceof RecordDecodeException) {
            return ((RecordDecodeException) error).at(record.partition(), record.offset());
        }
        return new RecordDecodeException(record.topic(), record.partition(), record.offset(), Problem.CORRUPT_BODY,
                -1, error.getClass().getSimpleName() + ": " + error.getMessage(), error);
    }

    public String topic() {
        return topic;
    }

    /** -1 when not known. */
    public int partition() {
        return partition;
    }

    /** -1 when not known. */
    public long offset() {
        return offset;
    }

    public Problem problem() {
        return problem;
    }

    /** -1 when the bytes did not get as far as a schema id. */
    public int schemaId() {
        return schemaId;
    }

    /** Whether retrying later could succeed (the bytes themselves may be fine). */
    public boolean retriable() {
        return problem == Problem.REGISTRY_UNAVAILABLE;
    }
}
