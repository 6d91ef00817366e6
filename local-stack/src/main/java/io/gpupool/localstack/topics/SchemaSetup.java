package io.gpupool.localstack.topics;

import io.gpupool.avro.JobCommand;
import io.gpupool.registry.SchemaRegistry;
import io.gpupool.schemas.RecordTypes;
import io.gpupool.serde.WireFormat;
import io.gpupool.topics.TenantJobTopics;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;

/**
 * Registers the value schema of every topic of a catalog under its TopicNameStrategy subject
 * ({@code <topic>-value}), as gpupool's own producers would on their first record. Without it a
 * fresh stack has no {@code gpupool.jobs-value} until a gpupool tool has written a job, and a client
 * with auto-registration off (the Confluent serializers' {@code auto.register.schemas=false}, normal
 * where only admins may register) cannot submit. Registering a schema already there changes nothing.
 */
public final class SchemaSetup {

    private SchemaSetup() {
    }

    /** Registers them all; returns subject -> schema id, in topic order. */
    public static Map<String, Integer> registerValueSchemas(final SchemaRegistry registry, final TopicCatalog catalog) {
        return registerValueSchemas(registry, catalog, List.of());
    }

    /** As {@link #registerValueSchemas(SchemaRegistry, TopicCatalog)}, and the job topic of each of {@code tenants} too. */
    public static Map<String, Integer> registerValueSchemas(final SchemaRegistry registry, final TopicCatalog catalog,
                                                            final Collection<String> tenants) {
        final Map<String, Integer> ids = new LinkedHashMap<>();
        for (final Topic topic : Topic.values()) {
            RecordTypes.valueClass(topic).ifPresent(type -> register(registry, catalog.name(topic), type, ids));
        }
        for (final String tenant : tenants) {
            register(registry, TenantJobTopics.topic(catalog.name(Topic.JOBS), tenant), JobCommand.class, ids);
        }
        return ids;
    }

    private static void register(final SchemaRegistry registry, final String topic, final Class<?> type,
                                 final Map<String, Integer> ids) {
        final Schema schema = SpecificData.get().getSchema(type);
        final String subject = WireFormat.subject(topic, false);
        ids.put(subject, registry.register(subject, schema));
    }
}
