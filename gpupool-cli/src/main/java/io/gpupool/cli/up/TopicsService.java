package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.localstack.topics.SchemaSetup;
import io.gpupool.localstack.topics.TopicSetup;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.registry.SchemaRegistryClient;
import io.gpupool.localstack.topics.TopicStatus;
import io.gpupool.topics.TenantJobTopics;
import io.gpupool.topics.TopicCatalog;
import io.gpupool.topics.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;

/**
 * Creates every topic of the catalog on the local broker, and the job topic of each tenant of {@code up --tenants},
 * and registers their value schemas; a topic that differs from its spec stops {@code up}.
 */
public final class TopicsService implements UpService {
    private final List<String> tenants;

    public TopicsService() {
        this(List.of());
    }

    /** @param tenants whose job topics ({@code gpupool.jobs.<tenant>}) are made besides the catalog's */
    public TopicsService(final Collection<String> tenants) {
        this.tenants = List.copyOf(tenants);
    }

    @Override
    public String name() {
        return "topics";
    }

    @Override
    public AutoCloseable start(final UpContext context) {
        final TopicCatalog catalog = TopicCatalog.defaults().withOverrides(context.config());
        final Properties admin = context.clientProperties(StackPrincipal.ADMIN);
        final List<TopicStatus> statuses;
        try (Admin client = Admin.create(admin)) {
            final List<TopicSpec> specs = new ArrayList<>(catalog.all());
            for (final String tenant : tenants) {
                specs.add(TenantJobTopics.spec(catalog, tenant));
            }
            statuses = new TopicSetup(client, Duration.ofSeconds(30)).apply(specs, false);
        }
        final List<TopicStatus> bad = statuses.stream().filter(s -> !s.ok()).collect(Collectors.toList());
        if (!bad.isEmpty()) {
            throw new IllegalStateException("topics differ from the catalog:\n    "
                    + bad.stream().map(TopicStatus::describe).collect(Collectors.joining("\n    "))
                    + "\n  fix them with `gpupool topics --alter-configs`, or delete the topics (or the data directory)");
        }
        final long created = statuses.stream().filter(s -> s.state() == TopicStatus.State.CREATED).count();
        context.out().printf("  topics     %d created, %d already there%n", created, statuses.size() - created);
        // every value schema, so that a client with auto-registration off can write from the start; as the admin,
        // since on a secured stack only the admin may register
        context.registryUrl().ifPresent(url -> {
            final Map<String, Object> config = new HashMap<>(context.clientMap(StackPrincipal.ADMIN));
            config.put(RegistryClientConfig.URL, url);
            context.out().printf("  schemas    %d value schemas registered%n", SchemaSetup.registerValueSchemas(
                    new SchemaRegistryClient(RegistryClientConfig.fromMap(config)), catalog, tenants).size());
        });
        context.out().flush();
        return () -> { };
    }
}
