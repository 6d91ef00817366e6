package io.gpupool.serde;

import java.util.HashSet;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * Whether a schema has an array whose items can encode in no bytes (null, an empty record, a
 * record of such fields, a zero-size fixed). For such an array a count says nothing about the
 * bytes that must follow it, so {@link BoundedDecoder} bounds its counts by the maxima only. Map
 * entries always have a key, so maps never qualify.
 */
final class ZeroByteItems {
    private ZeroByteItems() {
    }

    static boolean anywhere(final Schema schema) {
        return anywhere(schema, new HashSet<>());
    }

    private static boolean anywhere(final Schema s, final Set<String> seen) {
        switch (s.getType()) {
            case RECORD:
                if (!seen.add(s.getFullName())) {
                    return false;
                }
                for (final Schema.Field f : s.getFields()) {
                    if (anywhere(f.schema(), seen)) {
                        return true;
                    }
                }
                return false;
            case ARRAY:
                return canBeEmpty(s.getElementType(), new HashSet<>()) || anywhere(s.getElementType(), seen);
            case MAP:
                return anywhere(s.getValueType(), seen);
            case UNION:
                for (final Schema branch : s.getTypes()) {
                    if (anywhere(branch, seen)) {
                        return true;
                    }
                }
                return false;
            default:
                return false;
        }
    }

    /** Whether a value of this type can take no bytes. */
    private static boolean canBeEmpty(final Schema s, final Set<String> open) {
        switch (s.getType()) {
            case NULL:
                return true;
            case FIXED:
                return s.getFixedSize() == 0;
            case RECORD:
                if (!open.add(s.getFullName())) {
                    return false; // a record inside itself is reached through a union, array or map: bytes
                }
                boolean empty = true;
                for (final Schema.Field f : s.getFields()) {
                    empty = empty && canBeEmpty(f.schema(), open);
                }
                open.remove(s.getFullName());
                return empty;
            default:
                return false; // unions, enums, numbers, strings, arrays and maps write at least one byte
        }
    }
}
