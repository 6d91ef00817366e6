package io.gpupool.serde;

import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Decodes raw consumer records and, when the bytes are bad, throws a {@link RecordDecodeException}
 * that carries the record's partition and offset (a bare Deserializer cannot know them). Use it
 * where records are consumed as byte[] and decoded in the application, e.g. a dead-letter-aware
 * consumer loop or a Streams DeserializationExceptionHandler:
 * <pre>
 *   try { job = decoder.value(record); }
 *   catch (RecordDecodeException e) { if (!e.retriable()) deadLetter(record, e); else throw e; }
 * </pre>
 */
public final class RecordDecoder<T> {
    private final Deserializer<T> deserializer;

    public RecordDecoder(final Deserializer<T> deserializer) {
        this.deserializer = Objects.requireNonNull(deserializer, "deserializer");
    }

    /** The record's value decoded; bad bytes raise RecordDecodeException naming topic, partition and offset. */
    public T value(final ConsumerRecord<byte[], byte[]> record) {
        try {
            return deserializer.deserialize(record.topic(), record.headers(), record.value());
        } catch (final RecordDecodeException e) {
            throw e.at(record.partition(), record.offset());
        }
    }

    /** The record's key decoded the same way (use a key deserializer). */
    public T key(final ConsumerRecord<byte[], byte[]> record) {
        try {
            return deserializer.deserialize(record.topic(), record.headers(), record.key());
        } catch (final RecordDecodeException e) {
            throw e.at(record.partition(), record.offset());
        }
    }
}
