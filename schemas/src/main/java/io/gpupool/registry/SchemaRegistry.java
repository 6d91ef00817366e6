package io.gpupool.registry;

import org.apache.avro.Schema;

/**
 * What the serdes need from a Schema Registry. {@link SchemaRegistryClient} speaks the REST API;
 * {@link InMemorySchemaRegistry} serves topology tests that run without a server.
 */
public interface SchemaRegistry {

    /** Registers the schema under the subject (or finds it already there) and returns its global id. */
    int register(String subject, Schema schema);

    /** Id of a schema already registered under the subject; {@link SchemaNotFoundException} or
     *  {@link SubjectNotFoundException} when it is not. */
    int idOf(String subject, Schema schema);

    /** The schema with that global id; {@link SchemaNotFoundException} when there is none. */
    Schema schemaById(int id);
}
