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

    void applySchema(final String subject, final int version, final int id, final Schema schema, final boolean deleted) {
        schemaById.putIfAbsent(id, schema);
        idByCanonical.putIfAbsent(canonical(schema), id);
        final List<SubjectVersion> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        versions.removeIf(v -> v.version() == version);
        versions.add(new SubjectVersion(subject, version, id, deleted));
        versions.sort((a, b) -> Integer.compare(a.version(), b.version()));
    }

    /**
     * A permanent delete: the version is gone, and a subject without versions with it. The schema
     * keeps its id (data written with it can still be read, as Confluent keeps it).
     */
    void removeVersion(final String subject, final int version) {
        final List<SubjectVersion> versions = subjects.get(subject);
        if (versions == null) {
            return;
        }
        versions.removeIf(v -> v.version() == version);
        if (versions.isEmpty()) {
            subjects.remove(subject);
        }
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

    /** Every schema id, ascending. */
    List<Integer> ids() {
        return new ArrayList<>(schemaById.keySet());
    }

    Optional<Schema> schema(final int id) {
        return Optional.ofNullable(schemaById.get(id));
    }

    /** Subjects with a live version; with {@code includeDeleted} also those whose versions are all soft-deleted. */
    List<String> subjects(final boolean includeDeleted) {
        final List<String> out = new ArrayList<>();
        subjects.forEach((name, versions) -> {
            if (includeDeleted || versions.stream().anyMatch(v -> !v.deleted())) {
                out.add(name);
            }
        });
        return out;
    }

    /** Live versions of a subject, oldest first; empty when the subject does not exist or all are soft-deleted. */
    List<SubjectVersion> versions(final String subject) {
        return allVersions(subject).stream().filter(v -> !v.deleted()).toList();
    }

    /** Every version of a subject kept, soft-deleted ones included, oldest first. */
    List<SubjectVersion> allVersions(final String subject) {
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
