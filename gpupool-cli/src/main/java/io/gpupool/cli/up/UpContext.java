package io.gpupool.cli.up;

import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.localstack.secure.StackPrincipal;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * What the services of {@code gpupool up} share while they start: the stack settings, the
 * configuration entries, where to print, and (once the stack service has started) where the
 * broker and the registry are.
 */
public final class UpContext {

    private final LocalStackSettings settings;
    private final Map<String, String> config;
    private final PrintWriter out;
    private final Properties commandConfig;
    private StackDescriptor stack;

    public UpContext(final LocalStackSettings settings, final Map<String, String> config, final PrintWriter out) {
        this(settings, config, out, new Properties());
    }

    /** @param commandConfig Kafka (and registry) client settings from {@code --command-config}, for every client {@code up} starts */
    public UpContext(final LocalStackSettings settings, final Map<String, String> config, final PrintWriter out,
            final Properties commandConfig) {
        this.settings = settings;
        this.config = Map.copyOf(config);
        this.out = out;
        this.commandConfig = (Properties) commandConfig.clone();
    }

    /**
     * The settings of one client {@code up} starts: the broker's address, on a secured stack the
     * principal's credentials (each part of the pipeline is its own principal), and {@code --command-config} over them.
     */
    public Properties clientProperties(final StackPrincipal principal) {
        final Properties client = new Properties();
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        settings.broker().security().ifPresent(s -> client.putAll(s.clientProperties(principal)));
        client.putAll(commandConfig);
        return client;
    }

    /** {@link #clientProperties} as the map the Kafka clients and serdes take. */
    public Map<String, Object> clientMap(final StackPrincipal principal) {
        final Map<String, Object> map = new TreeMap<>();
        clientProperties(principal).forEach((k, v) -> map.put(k.toString(), v));
        return map;
    }

    public LocalStackSettings settings() {
        return settings;
    }

    /** Entries of the config file (e.g. {@code gpupool.topic.*}) for services that read settings. */
    public Map<String, String> config() {
        return config;
    }

    public PrintWriter out() {
        return out;
    }

    /** Set by the stack service; every later service reads the broker and registry from here. */
    public void stackStarted(final StackDescriptor descriptor) {
        this.stack = descriptor;
    }

    public StackDescriptor stack() {
        if (stack == null) {
            throw new IllegalStateException("the local stack service must be first in the service list");
        }
        return stack;
    }

    public String bootstrapServers() {
        return stack().bootstrapServers();
    }

    public Optional<String> registryUrl() {
        return stack().registryUrl();
    }
}
