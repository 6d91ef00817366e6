package io.gpupool.localstack.registry;

import io.gpupool.registry.CompatibilityLevel;
import io.gpupool.registry.RegistryErrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.AvroRuntimeException;

/**
 * The registry's rules, apart from HTTP: registering with a real compatibility check, lookups,
 * and compatibility levels. One lock serialises all changes, so ids and versions are handed out
 * in one order and each is durable in the log before it is visible.
 */
final class RegistryService {
    private final SchemaStore store;
    private final SchemaLog log;

    RegistryService(final SchemaStore store, final SchemaLog log) {
        this.store = store;
        this.log = log;
    }

    static Schema parse(final String text) {
        if (text == null) {
            throw RegistryError.invalidSchema("Invalid schema: the request has no 'schema' field");
        }
        try {
            return new Schema.Parser().parse(text);
        } catch (final AvroRuntimeException | NullPointerException e) {
            throw RegistryError.invalidSchema("Invalid schema " + text + ": " + e.getMessage());
        }
    }

    /** Registers (or finds) the schema under the subject; returns its global id. */
    synchronized int register(final String subject, final String schemaText) {
        final Schema schema = parse(schemaText);
        final List<SubjectVersion> versions = store.versions(subject);
        final Optional<Integer> knownId = store.idOf(schema);
        if (knownId.isPresent()) {
            for (final SubjectVersion v : versions) {
                if (v.id() == knownId.get()) {
                    return v.id();
                }
            }
        }
        final CompatibilityLevel level = store.effectiveLevel(subject);
        final List<String> problems = level.check(schema, schemas(versions));
        if (!problems.isEmpty()) {
            throw RegistryError.incompatible("Schema being registered is incompatible with an earlier schema for "
                    + "subject \"" + subject + "\" (compatibility " + level + "), details: " + problems);
        }
        final int id = knownId.orElseGet(store::nextId);
        final int version = versions.isEmpty() ? 1 : versions.get(versions.size() - 1).version() + 1;
        log.appendSchema(subject, version, id, schema);
        store.applySchema(subject, version, id, schema);
        return id;
    }

    /** The version of the subject that holds this schema. */
    synchronized SubjectVersion lookup(final String subject, final String schemaText) {
        final Schema schema = parse(schemaText);
        final List<SubjectVersion> versions = requireSubject(subject);
        final Optional<Integer> id = store.idOf(schema);
        for (final SubjectVersion v : versions) {
            if (id.isPresent() && v.id() == id.get()) {
                return v;
            }
        }
        throw RegistryError.schemaNotFound("Schema not found under subject '" + subject + "'.");
    }

    synchronized Schema schema(final int id) {
        return store.schema(id).orElseThrow(() -> RegistryError.schemaNotFound("Schema " + id + " not found"));
    }

    synchronized List<String> subjects() {
        return store.subjects();
    }

    synchronized List<Integer> versionNumbers(final String subject) {
        final List<Integer> out = new ArrayList<>();
        requireSubject(subject).forEach(v -> out.add(v.version()));
        return out;
    }

    /** Version by number or "latest" (also -1, as Confluent accepts). */
    synchronized SubjectVersion version(final String subject, final String versionText) {
        final List<SubjectVersion> versions = requireSubject(subject);
        if (versionText.equals("latest") || versionText.equals("-1")) {
            return versions.get(versions.size() - 1);
        }
        final int wanted = parseVersion(versionText);
        for (final SubjectVersion v : versions) {
            if (v.version() == wanted) {
                return v;
            }
        }
        throw RegistryError.versionNotFound(subject, versionText);
    }

    /**
     * Problems that would refuse the schema: against "latest" the subject's level decides which
     * versions count (all of them for *_TRANSITIVE); against a numbered version, only that one.
     */
    synchronized List<String> testCompatibility(final String subject, final String versionText,
                                                final String schemaText) {
        final Schema schema = parse(schemaText);
        final CompatibilityLevel level = store.effectiveLevel(subject);
        final List<SubjectVersion> versions = requireSubject(subject);
        if (versionText.equals("latest") || versionText.equals("-1")) {
            return level.check(schema, schemas(versions));
        }
        final SubjectVersion v = version(subject, versionText);
        return level.check(schema, List.of(store.schema(v.id()).orElseThrow()));
    }

    synchronized CompatibilityLevel globalLevel() {
        return store.globalLevel();
    }

    synchronized Optional<CompatibilityLevel> subjectLevel(final String subject) {
        return store.subjectLevel(subject);
    }

    synchronized CompatibilityLevel setLevel(final String subjectOrNull, final String levelText) {
        final CompatibilityLevel level;
        try {
            level = CompatibilityLevel.parse(levelText);
        } catch (final IllegalArgumentException e) {
            throw RegistryError.invalidCompatibility(levelText);
        }
        log.appendConfig(subjectOrNull, level);
        store.applyConfig(subjectOrNull, level);
        return level;
    }

    synchronized CompatibilityLevel deleteSubjectLevel(final String subject) {
        final CompatibilityLevel previous = store.subjectLevel(subject).orElseThrow(() -> new RegistryError(404,
                RegistryErrors.SUBJECT_COMPATIBILITY_NOT_CONFIGURED,
                "Subject '" + subject + "' does not have subject-level compatibility configured"));
        log.appendConfig(subject, null);
        store.applyConfig(subject, null);
        return previous;
    }

    private List<SubjectVersion> requireSubject(final String subject) {
        final List<SubjectVersion> versions = store.versions(subject);
        if (versions.isEmpty()) {
            throw RegistryError.subjectNotFound(subject);
        }
        return versions;
    }

    private List<Schema> schemas(final List<SubjectVersion> versions) {
        final List<Schema> out = new ArrayList<>();
        versions.forEach(v -> out.add(store.schema(v.id()).orElseThrow()));
        return out;
    }

    private static int parseVersion(final String text) {
        try {
            final int v = Integer.parseInt(text);
            if (v < 1) {
                throw RegistryError.invalidVersion(text);
            }
            return v;
        } catch (final NumberFormatException e) {
            throw RegistryError.invalidVersion(text);
        }
    }
}
