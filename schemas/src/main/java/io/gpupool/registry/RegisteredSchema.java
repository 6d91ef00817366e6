package io.gpupool.registry;

import java.util.Objects;
import org.apache.avro.Schema;

/** One version of a subject as the registry returns it. */
public final class RegisteredSchema {
    private final String subject;
    private final int id;
    private final int version;
    private final Schema schema;

    public RegisteredSchema(final String subject, final int id, final int version, final Schema schema) {
        this.subject = Objects.requireNonNull(subject, "subject");
        this.id = id;
        this.version = version;
        this.schema = Objects.requireNonNull(schema, "schema");
    }

    public String subject() {
        return subject;
    }

    public int id() {
        return id;
    }

    public int version() {
        return version;
    }

    public Schema schema() {
        return schema;
    }

    @Override
    public String toString() {
        return subject + " v" + version + " id " + id;
    }
}
