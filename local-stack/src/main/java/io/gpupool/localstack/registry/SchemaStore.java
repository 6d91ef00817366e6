package io.gpupool.localstack.registry;

import io.gpupool.registry.CompatibilityLevel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.avro.Schema;

/**
 * The registry's state in memory: global ids, subjects with their versions, compatibility levels.
 * Rebuilt on start by replaying the _schemas log, so every change goes through {@link #applySchema}
 * and {@link #applyConfig}. Sorted maps keep listings stable. Not thread-safe: the service locks.
 */
final class SchemaStore {
    private final TreeMap<Integer, Schema> schemaById = new TreeMap<>();
    private final Map<String, Integer> idByCanonical = new TreeMap<>();
    private final Map<String, List<SubjectVersion>> subjects = new TreeMap<>();
    private final Map<String, CompatibilityLevel> subjectLevels = new TreeMap<>();
    private CompatibilityLevel globalLevel = CompatibilityLevel.BACKWARD;

    /** The form two schemas are compared in: Avro's own JSON rendering of the parsed schema. */
    static String canonical(final Schema schema) {
        return schema.toString();
    }

    void applySchema(final String subject, final int version, final int id, final Schema schema) {
        schemaById.putIfAbsent(id, schema);
        idByCanonical.putIfAbsent(canonical(schema), id);
        final List<SubjectVersion> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        versions.removeIf(v -> v.version() == version);
        versions.add(new SubjectVersion(subject, version, id));
        versions.sort((a, b) -> Integer.compare(a.version(), b.version()));
    }

    void applyConfig(final String subjectOrNull, final CompatibilityLevel level) {
        if (subjectOrNull == null) {
            globalLevel = level;
        } else if (level == null) {
            subjectLevels.remove(subjectOrNull);
        } else {
            subjectLevels.put(subjectOrNull, level);
        }
    }

    int nextId() {
        return schemaById.isEmpty() ? 1 : schemaById.lastKey() + 1;
    }

    Optional<Integer> idOf(final Schema schema) {
        return Optional.ofNullable(idByCanonical.get(canonical(schema)));
    }

    Optional<Schema> schema(final int id) {
        return Optional.ofNullable(schemaById.get(id));
    }

    List<String> subjects() {
        return new ArrayList<>(subjects.keySet());
    }

    /** Versions of a subject, oldest first; empty when the subject does not exist. */
    List<SubjectVersion> versions(final String subject) {
        final List<SubjectVersion> v = subjects.get(subject);
        return v == null ? List.of() : List.copyOf(v);
    }

    CompatibilityLevel globalLevel() {
        return globalLevel;
    }

    Optional<CompatibilityLevel> subjectLevel(final String subject) {
        return Optional.ofNullable(subjectLevels.get(subject));
    }

    CompatibilityLevel effectiveLevel(final String subject) {
        return subjectLevels.getOrDefault(subject, globalLevel);
    }
}
