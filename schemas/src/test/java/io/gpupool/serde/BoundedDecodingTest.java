package io.gpupool.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JobCancel;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.registry.InMemorySchemaRegistry;
import io.gpupool.serde.RecordDecodeException.Problem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Counts and lengths are checked against the bytes left and the maxima before Avro allocates: an
 * allocation bomb is a TRUNCATED_BODY (more than the bytes left) or OVER_LIMIT (more than the
 * maxima) record to dead-letter, not an OutOfMemoryError; records exactly at a limit still decode.
 */
class BoundedDecodingTest {
    private static final String TOPIC = "bounded";
    private static final String REGISTRY = "bounded-decoding";
    private final InMemorySchemaRegistry registry = InMemorySchemaRegistry.named(REGISTRY);

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.drop(REGISTRY);
    }

    private int subjects;

    /** Each writer schema under a subject of its own, so that test schemas need not be compatible. */
    private int id(final Schema writer) {
        return registry.register(TOPIC + "-" + subjects++, writer);
    }

    private <T extends SpecificRecord> RecordDecodeException rejected(final Class<T> type, final byte[] record) {
        final SpecificAvroDeserializer<T> de = new SpecificAvroDeserializer<>(registry, type);
        final Throwable t = catchThrowable(() -> de.deserialize(TOPIC, record));
        assertThat(t).isInstanceOf(RecordDecodeException.class);
        return (RecordDecodeException) t;
    }

    @Test
    void anArrayCountBeyondTheBytesLeftIsRefusedNotAnOutOfMemoryError() {
        final byte[] bomb = AllocationBomb.record(id(GpuSamples.getClassSchema()), GpuSamples.getClassSchema(), "gpus");
        final RecordDecodeException e = rejected(GpuSamples.class, bomb);
        assertThat(e.problem()).isEqualTo(Problem.TRUNCATED_BODY);
        assertThat(e.retriable()).isFalse();
        assertThat(e.getMessage()).contains("array of 2000000000 items in a " + bomb.length + "-byte record");
    }

    @Test
    void aStringOrMapBeyondTheBytesLeftIsRefused() {
        final Schema inventory = NodeInventory.getClassSchema();
        final byte[] string = AllocationBomb.record(id(inventory), inventory, "nodeId");
        assertThat(rejected(NodeInventory.class, string).getMessage())
                .contains("string of 2000000000 bytes in a " + string.length + "-byte record");
        final byte[] map = AllocationBomb.record(id(inventory), inventory, "labels");
        assertThat(rejected(NodeInventory.class, map).getMessage())
                .contains("map of 2000000000 items in a " + map.length + "-byte record");
    }

    @Test
    void aCountDeepInsideTheRecordIsCheckedToo() {
        // the Xid codes of the first GPU sample, inside a union inside an array item
        final byte[] bomb = AllocationBomb.record(id(GpuSamples.getClassSchema()), GpuSamples.getClassSchema(),
                "xidCodes");
        final RecordDecodeException e = rejected(GpuSamples.class, bomb);
        assertThat(e.problem()).isEqualTo(Problem.TRUNCATED_BODY);
        assertThat(e.getMessage()).contains("array of 2000000000 items");
        // and in a journal entry, whose payload union carries a node's whole inventory
        final byte[] journal = AllocationBomb.record(id(JournalEntry.getClassSchema()), JournalEntry.getClassSchema(),
                "gpus");
        assertThat(rejected(JournalEntry.class, journal).getMessage()).contains("array of 2000000000 items");
    }

    @Test
    void aFieldTheReaderSkipsIsCheckedToo() {
        // a newer writer with a field today's reader does not have: Avro skips it, by count
        final Schema writer = SchemaBuilder.record("JobCancel").namespace("io.gpupool.avro").fields()
                .name("reason").type().unionOf().nullType().and().stringType().endUnion().nullDefault()
                .name("extra").type().array().items().stringType().arrayDefault(List.of())
                .endRecord();
        final byte[] bomb = AllocationBomb.record(id(writer), writer, "extra");
        final RecordDecodeException e = rejected(JobCancel.class, bomb);
        assertThat(e.problem()).isEqualTo(Problem.TRUNCATED_BODY);
        assertThat(e.getMessage()).contains("array of 2000000000 items");
    }

    @Test
    void countsAndLengthsExactlyAtTheBytesLeftAreNotOverLimit() throws IOException {
        // JobEvent ends with gpuUuids, an array of strings; an empty string takes exactly one byte,
        // so after a count of n come n bytes and the end-of-array byte: n + 1 are left
        final int id = id(JobEvent.getClassSchema());
        final JobEvent event = JobEvent.newBuilder().setJobId("j").setEventId("e").setOccurredAt(Instant.EPOCH)
                .setGpuUuids(Collections.nCopies(5, "")).build();
        final byte[] good = encode(id, event);
        assertThat(new SpecificAvroDeserializer<>(registry, JobEvent.class).deserialize(TOPIC, good)).isEqualTo(event);
        // the count patched to the bytes left (6) passes the check; the record is found short later,
        // by Avro, reading the end-of-array byte as a sixth string
        final int countAt = good.length - 7; // count, 5 empty strings, end of array
        assertThat(good[countAt]).isEqualTo((byte) 10); // zig-zag 5
        final byte[] atLimit = good.clone();
        atLimit[countAt] = 12; // 6
        assertThat(rejected(JobEvent.class, atLimit).getMessage()).doesNotContain("bytes left");
        final byte[] overLimit = good.clone();
        overLimit[countAt] = 14; // 7
        assertThat(rejected(JobEvent.class, overLimit).getMessage())
                .contains("array of 7 items in a " + good.length + "-byte record (6 bytes left");
    }

    @Test
    void theMaximaHoldForRecordsThatAreLargeButNotSane() throws IOException {
        final DecodeLimits limits = new DecodeLimits(3, 5);
        final int id = id(GpuSamples.getClassSchema());
        final SpecificAvroDeserializer<GpuSamples> de = new SpecificAvroDeserializer<>(registry, GpuSamples.class, limits);
        final GpuSamples atTheLimits = samples("n1234", 3);
        assertThat(de.deserialize(TOPIC, encode(id, atTheLimits))).isEqualTo(atTheLimits);
        assertThatThrownBy(() -> de.deserialize(TOPIC, encode(id, samples("n1234", 4))))
                .isInstanceOfSatisfying(RecordDecodeException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.OVER_LIMIT);
                    assertThat(e.getMessage()).contains("array of 4 items").contains("over the limit of 3 items");
                });
        assertThatThrownBy(() -> de.deserialize(TOPIC, encode(id, samples("n12345", 3))))
                .isInstanceOfSatisfying(RecordDecodeException.class, e -> assertThat(e.getMessage())
                        .contains("string of 6 bytes").contains("over the limit of 5 bytes"));
    }

    @Test
    void itemsThatTakeNoBytesAreBoundedByTheMaximaAlone() throws IOException {
        final int id = id(Nulls.getClassSchema());
        final Nulls five = new Nulls();
        five.put(0, Collections.nCopies(5, null));
        final byte[] good = encode(id, five); // count 5, then only the end-of-array byte
        assertThat(new SpecificAvroDeserializer<>(registry, Nulls.class).deserialize(TOPIC, good).getNulls()).hasSize(5);
        final byte[] bomb = AllocationBomb.record(id, Nulls.getClassSchema(), "nulls");
        assertThat(rejected(Nulls.class, bomb).getMessage()).contains("array of 2000000000 items")
                .contains("over the limit of " + DecodeLimits.DEFAULT.maxItems() + " items");
    }

    @Test
    void anErrorWhileDecodingOneRecordIsThatRecordsProblem() {
        // limits off and items of no bytes: Avro preallocates 2x10^9 references, more than this heap holds
        final int id = id(Nulls.getClassSchema());
        final SpecificAvroDeserializer<Nulls> unbounded = new SpecificAvroDeserializer<>(registry, Nulls.class,
                new DecodeLimits(Integer.MAX_VALUE, Integer.MAX_VALUE));
        assertThat(Runtime.getRuntime().maxMemory()).as("the surefire heap (-Xmx in the schemas pom)")
                .isLessThan(4L * AllocationBomb.CLAIM);
        final byte[] bomb = AllocationBomb.record(id, Nulls.getClassSchema(), "nulls");
        assertThatThrownBy(() -> unbounded.deserialize(TOPIC, bomb))
                .isInstanceOfSatisfying(RecordDecodeException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.DECODER_FAILED);
                    assertThat(e.retriable()).isFalse();
                    assertThat(e.getMessage()).contains("OutOfMemoryError while decoding a " + bomb.length + "-byte record");
                });
        // and the deserializer goes on with the next record
        final Nulls none = new Nulls();
        none.put(0, List.of());
        assertThat(unbounded.deserialize(TOPIC, encodeUnchecked(id, none)).getNulls()).isEmpty();
    }

    @Test
    void noArrayOfOurSchemasHasItemsOfNoBytesSoEveryCountIsBoundByTheBytesLeft() throws IOException {
        final List<Schema> ours = new ArrayList<>(List.of(GpuSamples.getClassSchema(), LinkSamples.getClassSchema(),
                NodeInventory.getClassSchema(), JobCommand.getClassSchema(), JobEvent.getClassSchema(),
                JournalEntry.getClassSchema(), PlacementDecision.getClassSchema(), NodeCommand.getClassSchema()));
        final Path released = Paths.get("src/test/resources/released");
        try (Stream<Path> files = Files.walk(released)) {
            for (final Path p : files.filter(f -> f.toString().endsWith(".avsc")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(p)) {
                    ours.add(new Schema.Parser().parse(in));
                }
            }
        }
        assertThat(ours).hasSizeGreaterThan(8);
        assertThat(ours).noneMatch(ZeroByteItems::anywhere);
        assertThat(ZeroByteItems.anywhere(Nulls.getClassSchema())).isTrue();
    }

    private static GpuSamples samples(final String node, final int gpus) {
        final List<GpuSample> list = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            list.add(GpuSample.newBuilder().setUuid("g" + i).build());
        }
        return GpuSamples.newBuilder().setNodeId(node).setSampledAt(Instant.EPOCH).setSource("s").setGpus(list).build();
    }

    private byte[] encode(final int id, final SpecificRecord record) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, id);
        bytes.writeBytes(header);
        final BinaryEncoder out = EncoderFactory.get().directBinaryEncoder(bytes, null);
        new SpecificDatumWriter<SpecificRecord>(record.getSchema()).write(record, out);
        out.flush();
        return bytes.toByteArray();
    }

    private byte[] encodeUnchecked(final int id, final SpecificRecord record) {
        try {
            return encode(id, record);
        } catch (final IOException e) {
            throw new AssertionError(e);
        }
    }
}
