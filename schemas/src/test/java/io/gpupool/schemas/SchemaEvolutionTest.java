package io.gpupool.schemas;

import io.gpupool.registry.CompatibilityLevel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.util.RandomData;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The evolution rule is BACKWARD: each current schema must read data written with its latest
 * released version, kept under src/test/resources/released/NAME/vN.avsc. When a version ships,
 * add its schema there as vN+1.
 */
class SchemaEvolutionTest {

    @Test
    void everyCurrentSchemaReadsItsLatestReleasedVersion() {
        final List<String> failures = new ArrayList<>();
        for (final Map.Entry<String, Schema> e : RecordTypes.currentSchemas().entrySet()) {
            final Schema released = latestReleased(e.getKey());
            for (final String problem : CompatibilityLevel.BACKWARD.check(e.getValue(), List.of(released))) {
                failures.add(e.getKey() + ": " + problem);
            }
        }
        assertThat(failures).as("backward-incompatible schema changes").isEmpty();
    }

    @Test
    void randomDataWrittenWithReleasedSchemasDecodesWithCurrentClasses() throws IOException {
        for (final Map.Entry<String, Schema> e : RecordTypes.currentSchemas().entrySet()) {
            final Schema released = latestReleased(e.getKey());
            final SpecificDatumReader<SpecificRecord> reader = new SpecificDatumReader<>(released, e.getValue());
            int decoded = 0;
            for (final Object datum : new RandomData(released, 25, 42L)) {
                final byte[] bytes = write(released, datum);
                final SpecificRecord record = reader.read(null, DecoderFactory.get().binaryDecoder(bytes, null));
                assertThat(record.getSchema().getFullName()).isEqualTo(e.getValue().getFullName());
                decoded++;
            }
            assertThat(decoded).isEqualTo(25);
        }
    }

    @Test
    void anIncompatibleChangeIsDetected() {
        final Schema released = latestReleased("NodeInventory");
        // A new field without a default cannot be filled when reading old data.
        final String json = released.toString().replaceFirst("\"fields\":\\[",
                "\"fields\":[{\"name\":\"rack\",\"type\":\"string\"},");
        final Schema withRequiredField = new Schema.Parser().parse(json);
        assertThat(CompatibilityLevel.BACKWARD.check(withRequiredField, List.of(released)))
                .singleElement().asString().contains("READER_FIELD_MISSING_DEFAULT_VALUE").contains("rack");
        // Changing a field's type (string -> int) is caught too.
        final Schema retyped = new Schema.Parser().parse(released.toString()
                .replaceFirst("\"name\":\"pool\",\"type\":\\{\"type\":\"string\",\"avro.java.string\":\"String\"\\}",
                        "\"name\":\"pool\",\"type\":\"int\""));
        assertThat(retyped.getField("pool").schema().getType()).isEqualTo(Schema.Type.INT);
        assertThat(CompatibilityLevel.BACKWARD.check(retyped, List.of(released))).isNotEmpty();
    }

    @Test
    void everyEnumHasADefaultSymbol() {
        final List<String> missing = new ArrayList<>();
        for (final Schema schema : RecordTypes.currentSchemas().values()) {
            SchemaWalk.named(schema).stream()
                    .filter(s -> s.getType() == Schema.Type.ENUM && s.getEnumDefault() == null)
                    .forEach(s -> missing.add(s.getFullName()));
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void everyTypeAndFieldIsDocumented() {
        final List<String> undocumented = new ArrayList<>();
        for (final Schema schema : RecordTypes.currentSchemas().values()) {
            for (final Schema named : SchemaWalk.named(schema)) {
                if (named.getDoc() == null || named.getDoc().isBlank()) {
                    undocumented.add(named.getFullName());
                }
                if (named.getType() == Schema.Type.RECORD) {
                    named.getFields().stream().filter(f -> f.doc() == null || f.doc().isBlank())
                            .forEach(f -> undocumented.add(named.getFullName() + "." + f.name()));
                }
            }
        }
        assertThat(undocumented).isEmpty();
    }

    @Test
    void everyTelemetryReadingIsNullableWithNullDefault() {
        final List<String> notNullable = new ArrayList<>();
        // Identity fields (which GPU, which port) are always present; every reading may be missing.
        for (final String name : List.of("GpuSample", "LinkSample")) {
            final Schema sample = RecordTypes.currentSchemas().values().stream()
                    .flatMap(s -> SchemaWalk.named(s).stream())
                    .filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
            for (final Schema.Field f : sample.getFields()) {
                if (List.of("uuid", "hca", "port", "saturatedCounters").contains(f.name())) {
                    continue;
                }
                final boolean nullable = f.schema().getType() == Schema.Type.UNION
                        && f.schema().getTypes().get(0).getType() == Schema.Type.NULL
                        && f.hasDefaultValue() && f.defaultVal() == JsonProperties.NULL_VALUE;
                if (!nullable) {
                    notNullable.add(name + "." + f.name());
                }
            }
        }
        assertThat(notNullable).isEmpty();
    }

    static Schema latestReleased(final String name) {
        Schema latest = null;
        for (int v = 1; ; v++) {
            final String path = "/released/" + name + "/v" + v + ".avsc";
            try (InputStream in = SchemaEvolutionTest.class.getResourceAsStream(path)) {
                if (in == null) {
                    break;
                }
                latest = new Schema.Parser().parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(latest).as("released version of " + name + " under src/test/resources/released/"
                + name + "/v1.avsc").isNotNull();
        return latest;
    }

    private static byte[] write(final Schema schema, final Object datum) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<Object>(schema).write(datum, enc);
        enc.flush();
        return out.toByteArray();
    }
}
