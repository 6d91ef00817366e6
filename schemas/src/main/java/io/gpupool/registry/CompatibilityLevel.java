package io.gpupool.registry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility.Incompatibility;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;
import org.apache.avro.SchemaCompatibility;

/**
 * Schema Registry compatibility levels, with the check itself done by Avro's SchemaCompatibility.
 * BACKWARD: the new schema can read data written with the previous one (consumers upgrade first).
 * FORWARD: data written with the new schema can be read by the previous one.
 * FULL: both. The *_TRANSITIVE variants check against every earlier version, not only the latest.
 */
public enum CompatibilityLevel {
    NONE(false, false, false),
    BACKWARD(true, false, false),
    BACKWARD_TRANSITIVE(true, false, true),
    FORWARD(false, true, false),
    FORWARD_TRANSITIVE(false, true, true),
    FULL(true, true, false),
    FULL_TRANSITIVE(true, true, true);

    private final boolean newReadsOld;
    private final boolean oldReadsNew;
    private final boolean transitive;

    CompatibilityLevel(final boolean newReadsOld, final boolean oldReadsNew, final boolean transitive) {
        this.newReadsOld = newReadsOld;
        this.oldReadsNew = oldReadsNew;
        this.transitive = transitive;
    }

    public boolean transitive() {
        return transitive;
    }

    /**
     * Checks a candidate against the existing versions of a subject, oldest first.
     * Returns the problems found, each in words; empty means compatible.
     */
    public List<String> check(final Schema candidate, final List<Schema> existingOldestFirst) {
        final List<String> problems = new ArrayList<>();
        if (existingOldestFirst.isEmpty() || this == NONE) {
            return problems;
        }
        final List<Schema> against = transitive ? existingOldestFirst
                : List.of(existingOldestFirst.get(existingOldestFirst.size() - 1));
        for (final Schema existing : against) {
            if (newReadsOld) {
                describe(SchemaCompatibility.checkReaderWriterCompatibility(candidate, existing),
                        "new schema cannot read data written with an existing version", problems);
            }
            if (oldReadsNew) {
                describe(SchemaCompatibility.checkReaderWriterCompatibility(existing, candidate),
                        "an existing version cannot read data written with the new schema", problems);
            }
        }
        return problems;
    }

    private static void describe(final SchemaPairCompatibility result, final String what,
                                 final List<String> problems) {
        if (result.getType() == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            return;
        }
        for (final Incompatibility i : result.getResult().getIncompatibilities()) {
            problems.add(what + ": " + i.getType() + " at " + i.getLocation() + " (" + i.getMessage() + ")");
        }
        if (result.getResult().getIncompatibilities().isEmpty()) {
            problems.add(what + ": " + result.getDescription());
        }
    }

    /** Parses a level as the registry API spells it; the error lists the accepted values. */
    public static CompatibilityLevel parse(final String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("unknown compatibility level '" + text + "'; use one of "
                    + Arrays.toString(values()), e);
        }
    }
}
