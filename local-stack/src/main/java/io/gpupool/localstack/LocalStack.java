package io.gpupool.localstack;

import io.gpupool.localstack.broker.Ports;
import io.gpupool.localstack.secure.StackSecurity;
import io.gpupool.localstack.broker.BrokerException;
import io.gpupool.localstack.broker.KafkaBroker;
import io.gpupool.localstack.broker.Processes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The one-machine stack: a real KRaft broker (child JVM) and the Schema-Registry-compatible
 * server, sharing one data directory. While it runs, {@code stack.properties} in the data
 * directory tells every other tool where it is; {@link #close()} stops it and removes that file.
 */
public final class LocalStack implements AutoCloseable {

    private static final Duration PROBE = Duration.ofSeconds(3);

    private final LocalStackSettings settings;
    private final KafkaBroker broker;
    private final StackRegistry registry;
    private final StackDescriptor descriptor;

    private LocalStack(final LocalStackSettings settings, final KafkaBroker broker, final StackRegistry registry,
                       final StackDescriptor descriptor) {
        this.settings = settings;
        this.broker = broker;
        this.registry = registry;
        this.descriptor = descriptor;
    }

    /**
     * Starts the stack in its data directory. A stack that still runs there (its owner alive and its
     * broker answering) is not started twice; an orphaned broker left by a killed owner is stopped first.
     */
    public static LocalStack start(final LocalStackSettings settings) {
        final Path dataDir = settings.dataDir();
        if (settings.broker().security().isEmpty() && StackSecurity.isSecured(dataDir)) {
            throw new BrokerException("the data directory " + dataDir + " holds a secured stack: start it with"
                    + " `gpupool up --secure`, or use another --data-dir");
        }
        clearStale(dataDir);
        final KafkaBroker broker = KafkaBroker.start(settings.broker());
        StackRegistry registry = null;
        try {
            registry = StackRegistry.start(dataDir, broker.bootstrapServers(), settings.registryPort(), settings.broker().security());
            final StackDescriptor descriptor = new StackDescriptor(dataDir, broker.bootstrapServers(),
                    registry.url(), broker.pid(), ProcessHandle.current().pid(), settings.broker().security().isPresent());
            descriptor.write();
            return new LocalStack(settings, broker, registry, descriptor);
        } catch (RuntimeException e) {
            if (registry != null) {
                registry.close();
            }
            broker.close();
            throw e;
        }
    }

    /** The running stack described in this data directory, if its broker answers now. */
    public static Optional<StackDescriptor> findRunning(final Path dataDir) {
        final Optional<StackDescriptor> descriptor = StackDescriptor.read(dataDir.toAbsolutePath().normalize());
        if (descriptor.isEmpty() || !descriptor.get().brokerAlive()) {
            return Optional.empty();
        }
        return answers(descriptor.get()) ? descriptor : Optional.empty();
    }

    /**
     * Connects to the stack running in this data directory, or starts one when none runs.
     * Closing the handle stops the stack only if this call started it.
     */
    public static StackHandle connectOrStart(final LocalStackSettings settings) {
        final Optional<StackDescriptor> running = findRunning(settings.dataDir());
        if (running.isPresent()) {
            return new StackHandle(running.get(), null);
        }
        final LocalStack started = start(settings);
        return new StackHandle(started.descriptor(), started);
    }

    /** {@link #connectOrStart(LocalStackSettings)} with the default settings for this data directory. */
    public static StackHandle connectOrStart(final Path dataDir) {
        return connectOrStart(LocalStackSettings.defaults(dataDir));
    }

    private static void clearStale(final Path dataDir) {
        final Optional<StackDescriptor> previous = StackDescriptor.read(dataDir);
        if (previous.isEmpty()) {
            return;
        }
        final StackDescriptor old = previous.get();
        if (old.ownerAlive() && old.brokerAlive() && answers(old)) {
            throw new BrokerException("a local stack already runs in " + dataDir + " (owner pid " + old.ownerPid()
                    + ", broker " + old.bootstrapServers() + "); use it, stop that process, or pass another --data-dir");
        }
        if (old.brokerAlive() && isOurBroker(old.brokerPid())) {
            // The owner died without stopping it (kill -9 before the broker noticed): stop the orphan.
            ProcessHandle.of(old.brokerPid()).ifPresent(p -> Processes.stop(p, Duration.ofSeconds(30)));
        }
        old.delete();
    }

    /**
     * Whether the described broker answers now. A secured one would refuse an anonymous client: that its
     * port takes connections is what can be known without a principal's password.
     */
    private static boolean answers(final StackDescriptor descriptor) {
        if (!descriptor.secure()) {
            return KafkaBroker.answers(descriptor.bootstrapServers(), PROBE);
        }
        final String address = descriptor.bootstrapServers().split(",")[0].trim();
        try {
            return Ports.accepts(Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean isOurBroker(final long pid) {
        return ProcessHandle.of(pid)
                .flatMap(p -> p.info().arguments())
                .map(args -> String.join(" ", args).contains("io.gpupool.localstack.broker.BrokerMain"))
                .orElse(false);
    }

    public StackDescriptor descriptor() {
        return descriptor;
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** The registry's base URL, empty while the stack runs without one. */
    public Optional<String> registryUrl() {
        return registry.url();
    }

    public Path dataDir() {
        return settings.dataDir();
    }

    public KafkaBroker broker() {
        return broker;
    }

    /** Stops the registry, then the broker (SIGTERM, then a kill after the timeout), and removes the descriptor. */
    @Override
    public void close() {
        try {
            registry.close();
        } finally {
            try {
                broker.close();
            } finally {
                descriptor.delete();
            }
        }
    }
}
