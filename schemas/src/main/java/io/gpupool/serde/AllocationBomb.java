package io.gpupool.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * A hostile record for tests and drills: valid Confluent wire format naming a real schema, whose
 * body is valid Avro up to one field that claims {@link #CLAIM} items (an array or map) or bytes (a
 * string or bytes), and then ends. A decoder that trusts the claim allocates gigabytes for a record
 * of a few dozen bytes. Every other field gets its smallest value; arrays and maps on the way to
 * the field hold one item, so the field can sit deep inside (e.g. a GPU sample's Xid codes).
 */
public final class AllocationBomb {
    /** What the bomb claims: fits an int (so Avro's cast does not turn it negative), 8 GB as references. */
    public static final long CLAIM = 2_000_000_000L;

    private final String field;
    private final BinaryEncoder out;

    private AllocationBomb(final String field, final BinaryEncoder out) {
        this.field = field;
        this.out = out;
    }

    /** The wire-format record: header with {@code schemaId}, then the body up to the claim in {@code field}. */
    public static byte[] record(final int schemaId, final Schema writer, final String field) {
        if (!contains(writer, field, new HashSet<>())) {
            throw new IllegalArgumentException(writer.getFullName() + " has no field " + field);
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, schemaId);
        bytes.writeBytes(header);
        final BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
        try {
            new AllocationBomb(field, encoder).write(writer);
            encoder.flush();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Writes a value of {@code s}; true once the claim is written (the body ends there). */
    private boolean write(final Schema s) throws IOException {
        switch (s.getType()) {
            case RECORD:
                for (final Schema.Field f : s.getFields()) {
                    if (f.name().equals(field) && claimable(f.schema()) != null) {
                        return claim(f.schema());
                    }
                    if (write(f.schema())) {
                        return true;
                    }
                }
                return false;
            case UNION:
                int branch = 0;
                for (int i = 0; i < s.getTypes().size(); i++) {
                    if (contains(s.getTypes().get(i), field, new HashSet<>())) {
                        branch = i;
                        break;
                    }
                }
                out.writeIndex(branch);
                return write(s.getTypes().get(branch));
            case ARRAY:
                if (!contains(s.getElementType(), field, new HashSet<>())) {
                    out.writeLong(0);
                    return false;
                }
                out.writeLong(1);
                return write(s.getElementType());
            case MAP:
                if (!contains(s.getValueType(), field, new HashSet<>())) {
                    out.writeLong(0);
                    return false;
                }
                out.writeLong(1);
                out.writeString("k");
                return write(s.getValueType());
            case FIXED:
                out.writeFixed(new byte[s.getFixedSize()]);
                return false;
            case STRING:
            case BYTES:
            case INT:
            case LONG:
            case ENUM:
                out.writeLong(0); // empty, zero or the first symbol: one zig-zag byte each
                return false;
            case BOOLEAN:
                out.writeBoolean(false);
                return false;
            case FLOAT:
                out.writeFloat(0f);
                return false;
            case DOUBLE:
                out.writeDouble(0d);
                return false;
            default:
                return false; // NULL: no bytes
        }
    }

    /** The claim: through a union to its array, map, string or bytes branch. */
    private boolean claim(final Schema s) throws IOException {
        if (s.getType() == Schema.Type.UNION) {
            final Schema target = claimable(s);
            out.writeIndex(s.getTypes().indexOf(target));
            return claim(target);
        }
        out.writeLong(CLAIM);
        return true;
    }

    /** The type a claim can be made in (itself or a union branch), or null. */
    private static Schema claimable(final Schema s) {
        switch (s.getType()) {
            case ARRAY:
            case MAP:
            case STRING:
            case BYTES:
                return s;
            case UNION:
                for (final Schema branch : s.getTypes()) {
                    if (claimable(branch) != null) {
                        return branch;
                    }
                }
                return null;
            default:
                return null;
        }
    }

    private static boolean contains(final Schema s, final String name, final Set<String> seen) {
        switch (s.getType()) {
            case RECORD:
                if (!seen.add(s.getFullName())) {
                    return false;
                }
                for (final Schema.Field f : s.getFields()) {
                    if ((f.name().equals(name) && claimable(f.schema()) != null) || contains(f.schema(), name, seen)) {
                        return true;
                    }
                }
                return false;
            case UNION:
                for (final Schema branch : s.getTypes()) {
                    if (contains(branch, name, seen)) {
                        return true;
                    }
                }
                return false;
            case ARRAY:
                return contains(s.getElementType(), name, seen);
            case MAP:
                return contains(s.getValueType(), name, seen);
            default:
                return false;
        }
    }
}
