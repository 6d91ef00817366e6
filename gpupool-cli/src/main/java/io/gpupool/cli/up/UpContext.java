package io.gpupool.cli.up;

import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.StackDescriptor;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;

/**
 * What the services of {@code gpupool up} share while they start: the stack settings, the
 * configuration entries, where to print, and (once the stack service has started) where the
 * broker and the registry are.
 */
public final class UpContext {

    private final LocalStackSettings settings;
    private final Map<String, String> config;
    private final PrintWriter out;
    private StackDescriptor stack;

    public UpContext(final LocalStackSettings settings, final Map<String, String> config, final PrintWriter out) {
        this.settings = settings;
        this.config = Map.copyOf(config);
        this.out = out;
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
