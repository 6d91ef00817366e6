package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackAcls;
import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.localstack.secure.StackSecurity;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.registry.SchemaRegistryClient;
import io.gpupool.schemas.RecordTypes;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;

/**
 * The secured stack's setup once its topics exist (up --secure): the ACLs of every principal, every value
 * schema registered by the admin (the other principals may only look schemas up), and one client
 * properties file per principal, printed so that every gpupool command can use them with --command-config.
 */
public final class SecureService implements UpService {
    private final String schedulerApplicationId;

    public SecureService(final String schedulerApplicationId) {
        this.schedulerApplicationId = schedulerApplicationId;
    }

    @Override
    public String name() {
        return "security";
    }

    @Override
    public AutoCloseable start(final UpContext context) throws Exception {
        final StackSecurity security = context.settings().broker().security().orElseThrow(() ->
                new IllegalStateException("the security service runs only on a secured stack (up --secure)"));
        final TopicCatalog catalog = TopicCatalog.defaults().withOverrides(context.config());
        try (Admin admin = Admin.create(context.clientProperties(StackPrincipal.ADMIN))) {
            StackAcls.apply(admin, catalog, schedulerApplicationId);
        }
        registerSchemas(context.clientMap(StackPrincipal.ADMIN), context.registryUrl().orElseThrow(), catalog);
        security.writeClientFiles();
        context.out().printf("  security   SASL_SSL (SCRAM-SHA-512 over TLS), ACLs per principal; registry over HTTPS with"
                + " basic auth%n");
        context.out().printf("             client settings per principal (--command-config FILE):%n");
        for (final StackPrincipal p : StackPrincipal.values()) {
            context.out().printf("               %-10s %s%n", p.user(), security.clientFile(p));
        }
        context.out().flush();
        return () -> { };
    }

    private static void registerSchemas(final Map<String, Object> admin, final String registryUrl, final TopicCatalog catalog) {
        final Map<String, Object> config = new HashMap<>(admin);
        config.put(RegistryClientConfig.URL, registryUrl);
        final SchemaRegistryClient registry = new SchemaRegistryClient(RegistryClientConfig.fromMap(config));
        for (final Topic topic : Topic.values()) {
            final Optional<Class<? extends SpecificRecord>> type = RecordTypes.valueClass(topic);
            if (type.isPresent()) {
                final Schema schema = SpecificData.get().getSchema(type.get());
                registry.register(catalog.name(topic) + "-value", schema);
            }
        }
    }
}
