package io.gpupool.cli.submit;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.ConfigLayers;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.localstack.secure.StackSecurity;
import io.gpupool.topics.TenantJobTopics;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import io.gpupool.scheduler.query.QueryClient;
import io.gpupool.scheduler.query.QueryEndpoint;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where {@code submit} and {@code cancel} send and read: --bootstrap-server, --command-config and
 * --registry-url, or the local stack in --data-dir; topic names from the config file.
 */
public final class StackClient {


    @Mixin
    ClusterOptions cluster;

    @Option(names = "--registry-url", paramLabel = "URL",
            description = "Schema registry. Default: the local stack's in --data-dir.")
    String registryUrl;

    @Option(names = "--scheduler-url", paramLabel = "URL",
            description = "The scheduler's query endpoint, to check a job before the command goes out. "
                    + "Default: the one running for the local stack in --data-dir.")
    String schedulerUrl;

    /** The scheduler to ask about jobs: --scheduler-url, or the local stack's; empty when neither is known. */
    Optional<QueryClient> scheduler() {
        if (schedulerUrl != null && !schedulerUrl.isBlank()) {
            return Optional.of(new QueryClient(schedulerUrl.trim()));
        }
        return QueryEndpoint.find(cluster.dataDir().path()).map(QueryClient::new);
    }

    /** The local stack's data directory (where its sink keeps job logs). */
    Path dataDir() {
        return cluster.dataDir().path();
    }

    Properties client() {
        return cluster.clientProperties();
    }

    String registry(final CommandLine cmd) {
        if (registryUrl != null && !registryUrl.isBlank()) {
            return registryUrl.trim();
        }
        return cluster.dataDir().running().flatMap(StackDescriptor::registryUrl).orElseThrow(() ->
                new CommandLine.PicocliException("no schema registry: pass --registry-url URL, or start a local stack "
                        + "with `gpupool up --data-dir " + cluster.dataDir().path() + "`"));
    }

    /** The tenant whose credentials {@code --command-config} holds ({@code gpupool.tenant}, see StackSecurity), if any. */
    public Optional<String> credentialTenant() {
        final String tenant = cluster.commandConfigOnly().getProperty(StackSecurity.TENANT_SETTING, "").trim();
        return tenant.isEmpty() ? Optional.empty() : Optional.of(tenant);
    }

    /** Where job commands go: a tenant's credentials write its own job topic ({@code <jobs>.<tenant>}), others the shared one. */
    String jobsTopic(final CommandLine.Model.CommandSpec spec) {
        final String jobs = topic(spec, Topic.JOBS);
        return credentialTenant().map(t -> TenantJobTopics.topic(jobs, t)).orElse(jobs);
    }

    String topic(final CommandLine.Model.CommandSpec spec, final Topic topic) {
        return TopicCatalog.defaults().withOverrides(ConfigLayers.of(spec).fileEntries()).name(topic);
    }
}
