package io.gpupool.serde;

import io.gpupool.registry.SchemaNotFoundException;
import io.gpupool.registry.SchemaRegistry;
import io.gpupool.registry.SchemaRegistryException;
import io.gpupool.serde.RecordDecodeException.Problem;
import java.io.EOFException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads Confluent wire format into SpecificRecords: fetches the writer schema by the id in the
 * header and resolves it to the reader's schema (the configured class), so records written with an
 * older compatible schema decode into today's classes. Bad bytes raise {@link RecordDecodeException}.
 * Counts and lengths are checked before Avro allocates for them ({@link BoundedDecoder}), and an
 * Error raised while decoding one record (a stack or heap exhausted by it) is that record's
 * problem too, so a consumer dead-letters it instead of losing its thread to it, again and again.
 */
public final class SpecificAvroDeserializer<T extends SpecificRecord> implements Deserializer<T> {
    private SchemaRegistry registry;
    private Schema readerSchema;
    private final Map<Integer, Reader<T>> readers = new ConcurrentHashMap<>();
    private final DecodeLimits limits;

    /** A writer schema's reader, and whether each of its array items takes at least one byte. */
    private record Reader<T>(SpecificDatumReader<T> datum, boolean itemsTakeBytes) {
    }

    /** For Kafka's by-class-name construction; {@link #configure} must follow (with specific.avro.value.type). */
    public SpecificAvroDeserializer() {
        this.limits = DecodeLimits.DEFAULT;
    }

    /** Reads into {@code type}; pass null to read into the class the writer schema names. */
    public SpecificAvroDeserializer(final SchemaRegistry registry, final Class<T> type) {
        this(registry, type, DecodeLimits.DEFAULT);
    }

    /** Reads into {@code type} with other maxima than {@link DecodeLimits#DEFAULT}. */
    public SpecificAvroDeserializer(final SchemaRegistry registry, final Class<T> type, final DecodeLimits limits) {
        this.registry = registry;
        this.limits = limits;
        this.readerSchema = type == null ? null : SpecificData.get().getSchema(type);
    }

    @Override
    public void configure(final Map<String, ?> configs, final boolean isKey) {
        if (registry == null) {
            registry = AvroSerdeConfig.registry(configs);
        }
        if (readerSchema == null) {
            final Class<?> type = AvroSerdeConfig.readerType(configs, isKey);
            if (type != null) {
                readerSchema = SpecificData.get().getSchema(type);
            }
        }
    }

    @Override
    public T deserialize(final String topic, final byte[] data) {
        return decode(topic, data);
    }

    @Override
    public T deserialize(final String topic, final Headers headers, final byte[] data) {
        return decode(topic, data);
    }

    private T decode(final String topic, final byte[] data) {
        if (data == null) {
            return null;
        }
        if (registry == null) {
            throw new IllegalStateException("deserializer not configured: call configure() with schema.registry.url");
        }
        if (data.length < WireFormat.HEADER_SIZE) {
            throw fail(topic, Problem.TRUNCATED_HEADER, -1, "record of " + data.length
                    + " bytes is shorter than the 5-byte header", null);
        }
        if (data[0] != WireFormat.MAGIC_BYTE) {
            throw fail(topic, Problem.WRONG_MAGIC_BYTE, -1, String.format(
                    "first byte is 0x%02x, expected 0x00: not Confluent wire format", data[0] & 0xff), null);
        }
        final int id = WireFormat.readSchemaId(data);
        final Reader<T> reader = reader(topic, id);
        final BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, WireFormat.HEADER_SIZE,
                data.length - WireFormat.HEADER_SIZE, null);
        final T record;
        try {
            record = reader.datum().read(null, new BoundedDecoder(decoder, data.length, limits, reader.itemsTakeBytes()));
        } catch (final DecodeLimitException e) {
            throw fail(topic, e.problem(), id, e.getMessage(), e);
        } catch (final StackOverflowError | OutOfMemoryError e) {
            // Caught for this one record only: the stack unwound and the failed allocation is garbage.
            throw fail(topic, Problem.DECODER_FAILED, id, e.getClass().getSimpleName() + " while decoding a "
                    + data.length + "-byte record: " + e.getMessage(), e);
        } catch (final EOFException e) {
            throw fail(topic, Problem.TRUNCATED_BODY, id, "body of " + (data.length - WireFormat.HEADER_SIZE)
                    + " bytes ends inside the record", e);
        } catch (final IOException | RuntimeException e) {
            // Avro reports garbage as negative lengths, bad union/enum indexes or oversized arrays.
            throw fail(topic, Problem.CORRUPT_BODY, id, String.valueOf(e.getMessage()), e);
        }
        try {
            if (!decoder.isEnd()) {
                throw fail(topic, Problem.TRAILING_BYTES, id, "bytes left after the end of the record", null);
            }
        } catch (final IOException e) {
            throw fail(topic, Problem.CORRUPT_BODY, id, String.valueOf(e.getMessage()), e);
        }
        return record;
    }

    private Reader<T> reader(final String topic, final int id) {
        final Reader<T> cached = readers.get(id);
        if (cached != null) {
            return cached;
        }
        final Schema writer;
        try {
            writer = registry.schemaById(id);
        } catch (final SchemaNotFoundException e) {
            throw fail(topic, Problem.UNKNOWN_SCHEMA_ID, id, "the registry has no schema " + id, e);
        } catch (final SchemaRegistryException e) {
            throw fail(topic, Problem.REGISTRY_UNAVAILABLE, id, e.getMessage(), e);
        }
        Schema reader = readerSchema;
        if (reader == null) {
            final Class<?> type = SpecificData.get().getClass(writer);
            if (type == null || !SpecificRecord.class.isAssignableFrom(type)) {
                throw fail(topic, Problem.SCHEMA_MISMATCH, id, "no generated class " + writer.getFullName()
                        + " on the classpath; configure " + AvroSerdeConfig.VALUE_TYPE, null);
            }
            reader = SpecificData.get().getSchema(type);
        }
        if (reader.getType() == Schema.Type.RECORD && writer.getType() == Schema.Type.RECORD
                && !reader.getFullName().equals(writer.getFullName())
                && !reader.getAliases().contains(writer.getFullName())) {
            throw fail(topic, Problem.SCHEMA_MISMATCH, id, "writer record " + writer.getFullName()
                    + " is not reader record " + reader.getFullName(), null);
        }
        // Checked here rather than left to the first read, so the error says what does not match.
        final SchemaCompatibility.SchemaPairCompatibility compatibility =
                SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
        if (compatibility.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            throw fail(topic, Problem.SCHEMA_MISMATCH, id, "reader " + reader.getFullName()
                    + " cannot read writer schema " + id + ": " + compatibility.getResult().getIncompatibilities(), null);
        }
        final Reader<T> created = new Reader<>(new SpecificDatumReader<>(writer, reader), !ZeroByteItems.anywhere(writer));
        readers.putIfAbsent(id, created);
        return created;
    }

    private static RecordDecodeException fail(final String topic, final Problem problem, final int id,
                                              final String detail, final Throwable cause) {
        return new RecordDecodeException(topic, -1, -1L, problem, id, detail, cause);
    }
}
