package io.gpupool.localstack.broker;

import io.gpupool.localstack.secure.StackSecurity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * A real single-node KRaft broker (broker and controller in one process) running as a child JVM
 * from the Kafka server classes on our classpath: {@code StorageTool format} on the first run,
 * then {@code kafka.Kafka server.properties}. Its data directory is reused across runs.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(250);
    /** Written next to the cluster id when the storage was formatted with the secured stack's SCRAM users. */
    private static final String SECURED_MARK = "secured";

    private final BrokerSettings settings;
    private final Process process;
    private final BrokerPorts ports;
    private final boolean formattedNow;

    private KafkaBroker(final BrokerSettings settings, final Process process, final BrokerPorts ports,
                        final boolean formattedNow) {
        this.settings = settings;
        this.process = process;
        this.ports = ports;
        this.formattedNow = formattedNow;
    }

    /** Formats the storage when needed, starts the broker JVM and waits until it answers. */
    public static KafkaBroker start(final BrokerSettings settings) {
        final BrokerLayout layout = settings.layout();
        try {
            final Prepared prepared = prepare(settings);
            final List<String> command = ChildJvm.command(settings.heap(), prepared.logFlags(), BrokerMain.class.getName(),
                    List.of(Long.toString(ProcessHandle.current().pid()), layout.serverProperties().toString()));
            Files.writeString(layout.brokerLog(), "=== gpupool: starting broker on 127.0.0.1:" + prepared.ports().broker() + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            final Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(layout.brokerLog().toFile()))
                    .start();
            final KafkaBroker broker = new KafkaBroker(settings, process, prepared.ports(), prepared.formattedNow());
            try {
                broker.awaitReady();
            } catch (RuntimeException | InterruptedException e) {
                broker.close();
                throw e;
            }
            return broker;
        } catch (IOException e) {
            throw new BrokerException("could not start the broker in " + settings.dataDir() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerException("interrupted while starting the broker", e);
        }
    }

    /** What a start needs before the broker JVM runs: ports, server.properties, logging, formatted storage. */
    record Prepared(BrokerPorts ports, List<String> logFlags, boolean formattedNow) {
    }

    static Prepared prepare(final BrokerSettings settings) throws IOException, InterruptedException {
        final BrokerLayout layout = settings.layout();
        Files.createDirectories(layout.logDirs());
        final List<String> logFlags = BrokerLogging.prepare(layout);
        final BrokerPorts ports = BrokerPorts.choose(layout, settings.port());
        final Map<String, String> props = ServerProperties.render(
                layout, ports.broker(), ports.controller(), settings.autoCreateTopics());
        settings.security().ifPresent(s -> props.putAll(s.serverProperties(ports.broker(), ports.controller())));
        Files.writeString(layout.serverProperties(), ServerProperties.toText(props), StandardCharsets.UTF_8);
        if (settings.security().isPresent() && FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            // it holds the admin's password and the keystore's: for this OS user only
            Files.setPosixFilePermissions(layout.serverProperties(), PosixFilePermissions.fromString("rw-------"));
        }
        final boolean formatNow = !StorageFormat.isFormatted(layout);
        if (formatNow) {
            StorageFormat.format(layout, "256m", logFlags,
                    settings.security().map(StackSecurity::formatArguments).orElse(List.of()));
        } else if (settings.security().isPresent() && !Files.isRegularFile(layout.kafkaDir().resolve(SECURED_MARK))) {
            throw new BrokerException("the data directory " + settings.dataDir() + " was formatted without --secure, so its"
                    + " broker has no SCRAM users; start the secured stack in a new --data-dir");
        }
        if (formatNow && settings.security().isPresent()) {
            Files.writeString(layout.kafkaDir().resolve(SECURED_MARK), "formatted with SCRAM users\n", StandardCharsets.UTF_8);
        }
        return new Prepared(ports, logFlags, formatNow);
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + ports.broker();
    }

    public int port() {
        return ports.broker();
    }

    public int controllerPort() {
        return ports.controller();
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** True when this start formatted a fresh data directory, false when it reused one. */
    public boolean formattedNow() {
        return formattedNow;
    }

    public BrokerLayout layout() {
        return settings.layout();
    }

    private void awaitReady() throws InterruptedException {
        final long deadline = System.nanoTime() + settings.startupTimeout().toNanos();
        // Wait for the port first: an admin client pointed at a closed port logs a warning per retry.
        while (!Ports.accepts(ports.broker())) {
            checkStillStarting(deadline);
            Thread.sleep(POLL.toMillis());
        }
        final Properties config = adminConfig(bootstrapServers());
        config.putAll(settings.adminClientProperties());
        try (Admin admin = Admin.create(config)) {
            while (!answers(admin)) {
                checkStillStarting(deadline);
                Thread.sleep(POLL.toMillis());
            }
        }
    }

    private void checkStillStarting(final long deadline) {
        if (!process.isAlive()) {
            throw new BrokerException("the broker JVM exited with code " + process.exitValue()
                    + " before it was ready; " + LogTail.of(settings.layout().brokerLog(), 30));
        }
        if (System.nanoTime() > deadline) {
            throw new BrokerException("the broker did not answer within " + settings.startupTimeout().toSeconds()
                    + " s; " + LogTail.of(settings.layout().brokerLog(), 30));
        }
    }

    private static boolean answers(final Admin admin) throws InterruptedException {
        try {
            return !admin.describeCluster(new DescribeClusterOptions().timeoutMs(2_000))
                    .nodes().get(3, TimeUnit.SECONDS).isEmpty();
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Whether a broker at this address answers now; used to tell a live stack from a stale descriptor. */
    public static boolean answers(final String bootstrapServers, final Duration timeout) {
        final Properties config = adminConfig(bootstrapServers);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        try (Admin admin = Admin.create(config)) {
            return !admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
                    .nodes().get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS).isEmpty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return false;
        }
    }

    private static Properties adminConfig(final String bootstrapServers) {
        final Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000);
        config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "gpupool-local-stack-readiness");
        return config;
    }

    /** SIGTERM (Kafka's shutdown hook stops the broker cleanly), then a kill after the shutdown timeout. */
    @Override
    public void close() {
        Processes.stop(process.toHandle(), settings.shutdownTimeout());
    }
}
