package io.gpupool.serde;

import io.gpupool.registry.SchemaRegistry;
import io.gpupool.registry.SchemaRegistryException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes SpecificRecords in the Confluent wire format, registering the record's schema under the
 * TopicNameStrategy subject (or, with auto.register.schemas=false, looking up its id there).
 * A null record is written as null (a tombstone).
 */
public final class SpecificAvroSerializer<T extends SpecificRecord> implements Serializer<T> {
    private SchemaRegistry registry;
    private boolean autoRegister = true;
    private boolean isKey;
    private final Map<Schema, SpecificDatumWriter<T>> writers = new ConcurrentHashMap<>();
    // Per subject, the id of each schema seen: Avro caches a schema's hash, so this lookup is cheap
    // on the hot path, unlike rendering the schema to JSON for the registry client's own cache.
    private final Map<String, Map<Schema, Integer>> ids = new ConcurrentHashMap<>();

    /** For Kafka's by-class-name construction; {@link #configure} must follow. */
    public SpecificAvroSerializer() {
    }

    public SpecificAvroSerializer(final SchemaRegistry registry, final boolean autoRegister, final boolean isKey) {
        this.registry = registry;
        this.autoRegister = autoRegister;
        this.isKey = isKey;
    }

    @Override
    public void configure(final Map<String, ?> configs, final boolean key) {
        if (registry == null) {
            registry = AvroSerdeConfig.registry(configs);
        }
        autoRegister = AvroSerdeConfig.autoRegister(configs);
        isKey = key;
    }

    @Override
    public byte[] serialize(final String topic, final T record) {
        if (record == null) {
            return null;
        }
        if (registry == null) {
            throw new IllegalStateException("serializer not configured: call configure() with schema.registry.url");
        }
        final Schema schema = record.getSchema();
        final String subject = WireFormat.subject(topic, isKey);
        final Map<Schema, Integer> known = ids.computeIfAbsent(subject, s -> new ConcurrentHashMap<>());
        Integer id = known.get(schema);
        if (id == null) {
            try {
                id = autoRegister ? registry.register(subject, schema) : registry.idOf(subject, schema);
            } catch (final SchemaRegistryException e) {
                throw new RecordEncodeException(topic, subject, e.getMessage(), e);
            }
            known.put(schema, id);
        }
        final byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, id);
        try {
            return AvroBinary.encode(header, writers.computeIfAbsent(schema, SpecificDatumWriter::new), record);
        } catch (final IOException | RuntimeException e) {
            throw new RecordEncodeException(topic, subject, "Avro encoding failed: " + e.getMessage(), e);
        }
    }
}
