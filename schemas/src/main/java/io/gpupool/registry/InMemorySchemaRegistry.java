package io.gpupool.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * A registry in memory, for topology tests that run without a server (schema.registry.url=mock://NAME;
 * the same NAME shares one instance in the JVM). Same rules as a real registry: global ids from 1,
 * versions per subject, and the compatibility check of its level (BACKWARD unless set).
 */
public final class InMemorySchemaRegistry implements SchemaRegistry {
    private static final Map<String, InMemorySchemaRegistry> NAMED = new ConcurrentHashMap<>();

    private final Map<Integer, Schema> byId = new HashMap<>();
    private final Map<String, Integer> idByText = new HashMap<>();
    private final Map<String, List<Integer>> versionsBySubject = new HashMap<>();
    private CompatibilityLevel level = CompatibilityLevel.BACKWARD;

    /** The shared instance for mock://NAME. */
    public static InMemorySchemaRegistry named(final String name) {
        return NAMED.computeIfAbsent(name, n -> new InMemorySchemaRegistry());
    }

    /** Forgets the shared instance for mock://NAME (between tests). */
    public static void drop(final String name) {
        NAMED.remove(name);
    }

    public synchronized void setCompatibility(final CompatibilityLevel newLevel) {
        this.level = newLevel;
    }

    @Override
    public synchronized int register(final String subject, final Schema schema) {
        final List<Integer> versions = versionsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
        final String text = schema.toString();
        final Integer existingId = idByText.get(text);
        if (existingId != null && versions.contains(existingId)) {
            return existingId;
        }
        final List<Schema> existing = new ArrayList<>();
        versions.forEach(id -> existing.add(byId.get(id)));
        final List<String> problems = level.check(schema, existing);
        if (!problems.isEmpty()) {
            if (versions.isEmpty()) {
                versionsBySubject.remove(subject);
            }
            throw new IncompatibleSchemaException("schema for subject " + subject + " is incompatible under "
                    + level + ": " + problems, 409, RegistryErrors.INCOMPATIBLE_SCHEMA);
        }
        final int id = existingId != null ? existingId : byId.size() + 1;
        byId.put(id, schema);
        idByText.put(text, id);
        versions.add(id);
        return id;
    }

    @Override
    public synchronized int idOf(final String subject, final Schema schema) {
        final List<Integer> versions = versionsBySubject.get(subject);
        if (versions == null) {
            throw new SubjectNotFoundException("Subject '" + subject + "' not found.", 404,
                    RegistryErrors.SUBJECT_NOT_FOUND);
        }
        final Integer id = idByText.get(schema.toString());
        if (id == null || !versions.contains(id)) {
            throw new SchemaNotFoundException("Schema not found under subject '" + subject + "'.", 404,
                    RegistryErrors.SCHEMA_NOT_FOUND);
        }
        return id;
    }

    @Override
    public synchronized Schema schemaById(final int id) {
        final Schema schema = byId.get(id);
        if (schema == null) {
            throw new SchemaNotFoundException("Schema " + id + " not found", 404, RegistryErrors.SCHEMA_NOT_FOUND);
        }
        return schema;
    }
}
