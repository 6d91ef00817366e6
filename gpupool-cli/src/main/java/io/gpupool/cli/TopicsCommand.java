package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.ConfigFileOption;
import io.gpupool.cli.config.ConfigLayers;
import io.gpupool.cli.config.DurationConverter;
import io.gpupool.localstack.topics.TopicSetup;
import io.gpupool.localstack.topics.TopicStatus;
import io.gpupool.topics.TenantJobTopics;
import io.gpupool.topics.TopicCatalog;
import io.gpupool.topics.TopicSpec;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool topics}: create or verify gpupool's topics on any cluster. */
@Command(name = "topics", mixinStandardHelpOptions = true,
        description = {
            "Creates or verifies the gpupool topics on any Kafka cluster.",
            "Missing topics are created; the others are checked against the catalog (partitions, replication,",
            "cleanup and retention). Names and settings can be changed in the --config file",
            "(gpupool.topic.<id>.name / .partitions / .replication / .config.<key>, gpupool.topics.partitions, ...).",
            "Exit code 0: all topics match; 7: some are missing or differ."})
public final class TopicsCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Mixin
    ConfigFileOption configFile;

    @Option(names = "--verify", description = "Only compare; create and change nothing.")
    boolean verify;

    @Option(names = "--alter-configs",
            description = "Set topic configs that differ from the catalog (partitions and replication are never changed).")
    boolean alterConfigs;

    @Option(names = "--partitions", paramLabel = "N", description = "Partitions of every topic (overrides the catalog).")
    Integer partitions;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Replication factor of every topic. Default: the broker's default.replication.factor.")
    Short replicationFactor;

    @Option(names = "--tenants", paramLabel = "TENANT", split = ",",
            description = "Also the job topics of these tenants (<jobs topic>.<tenant>), made as the jobs topic is; a scheduler"
                    + " run with --tenant-topics reads them.")
    List<String> tenants = new ArrayList<>();

    @Option(names = "--timeout", paramLabel = "TIME", defaultValue = "30s", converter = DurationConverter.class,
            description = "How long to wait for each cluster answer (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (verify && alterConfigs) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--verify changes nothing, --alter-configs changes configs: give one of them");
        }
        final TopicCatalog catalog = TopicCatalog.defaults().withOverrides(overrides());
        final List<TopicSpec> specs = new ArrayList<>(catalog.all());
        for (final String tenant : tenants) {
            try {
                specs.add(TenantJobTopics.spec(catalog, tenant));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--tenants: " + e.getMessage());
            }
        }
        final PrintWriter out = spec.commandLine().getOut();
        final List<TopicStatus> statuses;
        final Properties client = cluster.clientProperties();
        // The admin client's own retries give up when we do, not 60 s later.
        client.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        client.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
        final Admin admin = Admin.create(client);
        try {
            final TopicSetup setup = new TopicSetup(admin, timeout);
            statuses = verify ? setup.verify(specs) : setup.apply(specs, alterConfigs);
        } finally {
            admin.close(Duration.ofSeconds(5));
        }
        statuses.forEach(s -> out.println(s.describe()));
        final long bad = statuses.stream().filter(s -> !s.ok()).count();
        if (bad == 0) {
            out.printf("%d topics match the catalog on %s%n", statuses.size(), cluster.bootstrapServers());
            out.flush();
            return 0;
        }
        out.flush();
        final PrintWriter err = spec.commandLine().getErr();
        err.printf("gpupool topics: %d of %d topics %s%n", bad, statuses.size(),
                verify ? "are missing or differ (run without --verify to create the missing ones; --alter-configs fixes configs)"
                       : "differ in ways this command does not change (partitions or replication): fix them by hand");
        err.flush();
        return ExitCodes.CHECK_FAILED.code();
    }

    private Map<String, String> overrides() {
        final Map<String, String> settings = new TreeMap<>(ConfigLayers.of(spec).fileEntries());
        if (partitions != null) {
            settings.put(TopicCatalog.ALL_PARTITIONS, partitions.toString());
        }
        if (replicationFactor != null) {
            settings.put(TopicCatalog.ALL_REPLICATION, replicationFactor.toString());
        }
        return settings;
    }
}
