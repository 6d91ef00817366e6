package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackAcls;
import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.localstack.secure.StackSecurity;
import io.gpupool.localstack.secure.TenantAccess;
import io.gpupool.topics.TenantJobTopics;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import org.apache.kafka.clients.admin.Admin;

/**
 * The secured stack's setup once its topics exist (up --secure): the ACLs of every principal (the value
 * schemas are registered by the admin in {@link TopicsService}; the other principals may only look them up),
 * and one client properties file per principal, printed so that every gpupool command can use them with --command-config.
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
            TenantAccess.apply(admin, catalog, security);
        }
        security.writeClientFiles();
        context.out().printf("  security   SASL_SSL (SCRAM-SHA-512, or PLAIN for old librdkafka, over TLS), ACLs per principal; registry over HTTPS with"
                + " basic auth%n");
        context.out().printf("             client settings per principal (--command-config FILE):%n");
        for (final StackPrincipal p : StackPrincipal.values()) {
            context.out().printf("               %-10s %s%n", p.user(), security.clientFile(p));
        }
        for (final String tenant : security.tenants()) {
            context.out().printf("               %-10s %s  (writes %s only)%n", StackSecurity.tenantUser(tenant),
                    security.tenantClientFile(tenant), TenantJobTopics.topic(catalog.name(Topic.JOBS), tenant));
        }
        context.out().flush();
        return () -> { };
    }
}
