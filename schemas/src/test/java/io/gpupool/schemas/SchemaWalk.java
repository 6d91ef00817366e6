package io.gpupool.schemas;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;

/** Collects every named type reachable from a schema. */
final class SchemaWalk {
    private SchemaWalk() {
    }

    static List<Schema> named(final Schema root) {
        final Map<String, Schema> seen = new LinkedHashMap<>();
        visit(root, seen);
        return new ArrayList<>(seen.values());
    }

    private static void visit(final Schema s, final Map<String, Schema> seen) {
        switch (s.getType()) {
            case RECORD:
                if (seen.putIfAbsent(s.getFullName(), s) == null) {
                    s.getFields().forEach(f -> visit(f.schema(), seen));
                }
                break;
            case ENUM:
            case FIXED:
                seen.putIfAbsent(s.getFullName(), s);
                break;
            case ARRAY:
                visit(s.getElementType(), seen);
                break;
            case MAP:
                visit(s.getValueType(), seen);
                break;
            case UNION:
                s.getTypes().forEach(t -> visit(t, seen));
                break;
            default:
                break;
        }
    }
}
