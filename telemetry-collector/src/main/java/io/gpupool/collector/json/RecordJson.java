package io.gpupool.collector.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.IndexedRecord;

/**
 * Avro records as plain JSON for people: field names as in the schema, nulls as null, enums as
 * their symbol, timestamps as ISO-8601. (Avro's own JSON encoding wraps every union value in
 * a type object, which no one wants to read in a terminal.)
 */
public final class RecordJson {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private RecordJson() {
    }

    public static String write(final Object value) {
        try {
            return MAPPER.writeValueAsString(plain(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    /** Converts records, lists and maps (recursively) into JSON-ready values. */
    public static Object plain(final Object value) {
        if (value instanceof IndexedRecord) {
            final IndexedRecord r = (IndexedRecord) value;
            final Map<String, Object> out = new LinkedHashMap<>();
            r.getSchema().getFields().forEach(f -> out.put(f.name(), plain(r.get(f.pos()))));
            return out;
        }
        if (value instanceof GenericContainer || value instanceof Enum) {
            return value.toString();
        }
        if (value instanceof Instant) {
            return value.toString();
        }
        if (value instanceof CharSequence) {
            return value.toString();
        }
        if (value instanceof List) {
            final List<Object> out = new ArrayList<>();
            ((List<?>) value).forEach(v -> out.add(plain(v)));
            return out;
        }
        if (value instanceof Map) {
            final Map<String, Object> out = new LinkedHashMap<>();
            ((Map<?, ?>) value).forEach((k, v) -> out.put(String.valueOf(k), plain(v)));
            return out;
        }
        return value;
    }
}
