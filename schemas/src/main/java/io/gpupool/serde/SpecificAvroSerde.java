package io.gpupool.serde;

import io.gpupool.registry.SchemaRegistry;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** Serializer and deserializer of one SpecificRecord type, in the Confluent wire format. */
public final class SpecificAvroSerde<T extends SpecificRecord> implements Serde<T> {
    private final SpecificAvroSerializer<T> serializer;
    private final SpecificAvroDeserializer<T> deserializer;
    private final Class<T> type;

    /** A serde on a given registry; {@code configure} is not needed (but applies auto.register.schemas). */
    public SpecificAvroSerde(final SchemaRegistry registry, final Class<T> type, final boolean autoRegister,
                             final boolean isKey) {
        this.type = type;
        this.serializer = new SpecificAvroSerializer<>(registry, autoRegister, isKey);
        this.deserializer = new SpecificAvroDeserializer<>(registry, type);
    }

    /** A serde configured later from client configs (schema.registry.url, auth, auto.register.schemas). */
    public SpecificAvroSerde(final Class<T> type) {
        this.type = type;
        this.serializer = new SpecificAvroSerializer<>();
        this.deserializer = new SpecificAvroDeserializer<>(null, type);
    }

    /**
     * For Kafka's by-class-name construction (e.g. Streams' default.value.serde): the reader type
     * comes from specific.avro.value.type, or else from the class the writer schema names.
     */
    public SpecificAvroSerde() {
        this.type = null;
        this.serializer = new SpecificAvroSerializer<>();
        this.deserializer = new SpecificAvroDeserializer<>();
    }

    /** A value serde for {@code type}, configured from client configs. */
    public static <T extends SpecificRecord> SpecificAvroSerde<T> forValues(final Class<T> type,
                                                                           final Map<String, ?> configs) {
        final SpecificAvroSerde<T> serde = new SpecificAvroSerde<>(type);
        serde.configure(configs, false);
        return serde;
    }

    @Override
    public void configure(final Map<String, ?> configs, final boolean isKey) {
        final Map<String, Object> withType = new HashMap<>(configs);
        if (type != null) {
            withType.put(isKey ? AvroSerdeConfig.KEY_TYPE : AvroSerdeConfig.VALUE_TYPE, type);
        }
        serializer.configure(withType, isKey);
        deserializer.configure(withType, isKey);
    }

    @Override
    public Serializer<T> serializer() {
        return serializer;
    }

    @Override
    public Deserializer<T> deserializer() {
        return deserializer;
    }
}
