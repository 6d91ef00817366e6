package io.gpupool.localstack.registry;

import io.gpupool.registry.CompatibilityLevel;
import io.gpupool.registry.RegistryErrors;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
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
        // numbers go on after soft-deleted versions too: a version number is never given twice while it is kept
        final List<SubjectVersion> kept = store.allVersions(subject);
        final int version = kept.isEmpty() ? 1 : kept.get(kept.size() - 1).version() + 1;
        log.appendSchema(subject, version, id, schema, false);
        store.applySchema(subject, version, id, schema, false);
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

    /**
     * The schema's GUID, which current Confluent clients read beside its id (and use in the header
     * wire format): a name-based UUID of the schema's canonical text, so the same on every restart
     * without being stored.
     */
    synchronized String guid(final int id) {
        return UUID.nameUUIDFromBytes(SchemaStore.canonical(schema(id)).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /** The id of the schema with this GUID. */
    synchronized int idOfGuid(final String guid) {
        for (final int id : store.ids()) {
            if (guid(id).equalsIgnoreCase(guid)) {
                return id;
            }
        }
        throw RegistryError.schemaNotFound("Schema " + guid + " not found");
    }

    synchronized List<String> subjects(final boolean includeDeleted) {
        return store.subjects(includeDeleted);
    }

    synchronized List<Integer> versionNumbers(final String subject, final boolean includeDeleted) {
        final List<Integer> out = new ArrayList<>();
        requireSubject(subject, includeDeleted).forEach(v -> out.add(v.version()));
        return out;
    }

    /** Version by number or "latest" (also -1, as Confluent accepts). */
    synchronized SubjectVersion version(final String subject, final String versionText) {
        return version(subject, versionText, false);
    }

    /** The same, soft-deleted versions included when asked ({@code ?deleted=true}). */
    synchronized SubjectVersion version(final String subject, final String versionText, final boolean includeDeleted) {
        final List<SubjectVersion> versions = requireSubject(subject, includeDeleted);
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

    /**
     * Deletes every version of the subject: soft (hidden, kept in the log, listed with ?deleted=true) or,
     * after a soft delete, permanently (with the subject's own compatibility level), as Confluent's
     * registry does. Returns the version numbers deleted.
     */
    synchronized List<Integer> deleteSubject(final String subject, final boolean permanent) {
        final List<SubjectVersion> all = store.allVersions(subject);
        if (all.isEmpty()) {
            throw RegistryError.subjectNotFound(subject);
        }
        final List<SubjectVersion> live = store.versions(subject);
        final List<Integer> deleted = new ArrayList<>();
        if (!permanent) {
            if (live.isEmpty()) {
                throw RegistryError.subjectSoftDeleted(subject);
            }
            live.forEach(v -> deleted.add(softDelete(v)));
            return deleted;
        }
        if (!live.isEmpty()) {
            throw RegistryError.subjectNotSoftDeleted(subject);
        }
        all.forEach(v -> deleted.add(remove(v)));
        if (store.subjectLevel(subject).isPresent()) {
            log.appendConfig(subject, null);
            store.applyConfig(subject, null);
        }
        return deleted;
    }

    /** Deletes one version (a number, or "latest"): soft, or permanently once it was soft-deleted. */
    synchronized int deleteVersion(final String subject, final String versionText, final boolean permanent) {
        final boolean latest = versionText.equals("latest") || versionText.equals("-1");
        // "latest" is the newest live version for a soft delete; a number may name a soft-deleted one
        final SubjectVersion v = version(subject, versionText, permanent || !latest);
        if (!permanent) {
            if (v.deleted()) {
                throw RegistryError.versionSoftDeleted(subject, v.version());
            }
            return softDelete(v);
        }
        if (!v.deleted()) {
            throw RegistryError.versionNotSoftDeleted(subject, v.version());
        }
        return remove(v);
    }

    private int softDelete(final SubjectVersion v) {
        final Schema schema = store.schema(v.id()).orElseThrow();
        log.appendSchema(v.subject(), v.version(), v.id(), schema, true);
        store.applySchema(v.subject(), v.version(), v.id(), schema, true);
        return v.version();
    }

    private int remove(final SubjectVersion v) {
        log.appendRemoval(v.subject(), v.version());
        store.removeVersion(v.subject(), v.version());
        return v.version();
    }

    private List<SubjectVersion> requireSubject(final String subject) {
        return requireSubject(subject, false);
    }

    private List<SubjectVersion> requireSubject(final String subject, final boolean includeDeleted) {
        final List<SubjectVersion> versions = includeDeleted ? store.allVersions(subject) : store.versions(subject);
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
