package io.gpupool.cli.history;

import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.DataDirOption;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.localstack.StackHandle;
import io.gpupool.scheduler.audit.KafkaHistory;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.topics.TopicCatalog;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where the recorded history is, for audit, replay, export and explain --at: any cluster
 * ({@code --bootstrap-server}, {@code --command-config}, {@code --registry-url}), or the local stack in
 * {@code --data-dir}, whose broker is started for the command when {@code gpupool up} no longer runs
 * (an auditor can take a recorded data directory and check it later).
 */
public final class HistorySource {

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--registry-url", paramLabel = "URL",
            description = "Schema Registry URL. Default: the local stack's registry. Env GPUPOOL_REGISTRY_URL.")
    String registryUrl;

    @Option(names = "--pool", paramLabel = "POOL", description = "Only this pool (default: all pools).")
    public String pool;

    @Option(names = "--topic-name", paramLabel = "ID=NAME",
            description = "Physical topic name for a catalog id (journal, decisions, ...) when the deployment renamed it.")
    Map<String, String> topicNames = new LinkedHashMap<>();

    /** The opened history, with the local stack it may have started (stopped on close). */
    public static final class Opened implements AutoCloseable {
        private final StackHandle stack;
        public final KafkaHistory history;

        Opened(final StackHandle stack, final KafkaHistory history) {
            this.stack = stack;
            this.history = history;
        }

        @Override
        public void close() {
            history.close();
            if (stack != null) {
                stack.close();
            }
        }
    }

    public Opened open(final CommandLine cmd) {
        Properties clients;
        StackHandle stack = null;
        try {
            clients = cluster.clientProperties(); // --bootstrap-server, or the running local stack
        } catch (CommandLine.PicocliException noStack) {
            // a recorded data directory whose stack is not running: start its broker for this command
            stack = cluster.dataDir().connectOrStart();
            clients = cluster.clientProperties();
        }
        return open(cmd, clients, stack, registryUrl, cluster.dataDir(), topicNames);
    }

    /** Opens the history with client settings already resolved; {@code stack} is closed with it. */
    public static Opened open(final CommandLine cmd, final Properties clients, final StackHandle stack,
                              final String registryUrl, final DataDirOption dataDir, final Map<String, String> topicNames) {
        final Map<String, String> names = new HashMap<>();
        topicNames.forEach((id, name) -> names.put(TopicCatalog.PREFIX + id + ".name", name));
        final TopicNames topics;
        String registry = registryUrl == null || registryUrl.isBlank() ? null : registryUrl.trim();
        try {
            topics = TopicNames.of(TopicCatalog.defaults().withOverrides(names));
            if (registry == null) {
                registry = stack != null ? stack.registryUrl().orElse(null)
                        : dataDir.running().flatMap(StackDescriptor::registryUrl).orElse(null);
            }
            if (registry == null) {
                throw new IllegalArgumentException("no schema registry: pass --registry-url URL");
            }
        } catch (IllegalArgumentException e) {
            if (stack != null) {
                stack.close();
            }
            throw new CommandLine.ParameterException(cmd, e.getMessage());
        }
        return new Opened(stack, new KafkaHistory(clients, registry, topics));
    }

    /**
     * Engine settings for re-running: the given ones, and when no policy is given, the policy the
     * recorded decisions name (the scheduler's own setting, so an audit needs no flags).
     */
    public static Function<String, EngineConfig> configs(final Map<String, String> settings,
                                                         final List<PlacementDecision> recorded) {
        final Map<String, String> s = new HashMap<>(settings);
        if (!s.containsKey("policy")) {
            recorded.stream().map(PlacementDecision::getPolicy).filter(p -> p != null)
                    .map(Object::toString).filter(p -> !p.equals("sequencer-validation")).findFirst()
                    .ifPresent(p -> s.put("policy", p));
        }
        return SchedulerApp.engineConfigs(s);
    }
}
