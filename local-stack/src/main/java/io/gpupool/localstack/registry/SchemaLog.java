package io.gpupool.localstack.registry;

import io.gpupool.registry.CompatibilityLevel;
import org.apache.avro.Schema;

/**
 * Where registry changes are made durable before they take effect. Appends must be durable when
 * they return; {@link #replay} rebuilds a store from everything appended so far.
 */
interface SchemaLog extends AutoCloseable {

    /** A version, or the same version marked soft-deleted. */
    void appendSchema(String subject, int version, int id, Schema schema, boolean deleted);

    /** A permanent delete of the version. */
    void appendRemoval(String subject, int version);

    /** A null subject is the global level; a null level removes a subject's own level. */
    void appendConfig(String subjectOrNull, CompatibilityLevel levelOrNull);

    void replay(SchemaStore store);

    @Override
    void close();

    /** Keeps nothing: for a registry that may forget everything when it stops (unit tests). */
    static SchemaLog none() {
        return new SchemaLog() {
            @Override
            public void appendSchema(final String subject, final int version, final int id, final Schema schema,
                                     final boolean deleted) {
            }

            @Override
            public void appendRemoval(final String subject, final int version) {
            }

            @Override
            public void appendConfig(final String subjectOrNull, final CompatibilityLevel levelOrNull) {
            }

            @Override
            public void replay(final SchemaStore store) {
            }

            @Override
            public void close() {
            }
        };
    }
}
