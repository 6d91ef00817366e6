package io.gpupool.scheduler.journal;

import io.gpupool.registry.SchemaRegistry;
import io.gpupool.serde.SpecificAvroDeserializer;
import io.gpupool.serde.SpecificAvroSerializer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Serializers and deserializers of the Avro records on one Schema Registry (HTTP, or the in-memory
 * one for topology tests). Values are decoded inside the processors from bytes, so a record that
 * cannot be decoded is dead-lettered with its position instead of stopping the application.
 */
public final class Codecs {
    private final SchemaRegistry registry;
    private final boolean autoRegister;

    public Codecs(final SchemaRegistry registry, final boolean autoRegister) {
        this.registry = registry;
        this.autoRegister = autoRegister;
    }

    public <T extends SpecificRecord> Deserializer<T> deserializer(final Class<T> type) {
        return new SpecificAvroDeserializer<>(registry, type);
    }

    public <T extends SpecificRecord> Serializer<T> serializer() {
        return new SpecificAvroSerializer<>(registry, autoRegister, false);
    }

    public SchemaRegistry registry() {
        return registry;
    }
}
