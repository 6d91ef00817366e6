package io.gpupool.cli.config;

import io.gpupool.localstack.StackDescriptor;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How a command reaches a Kafka cluster, as Kafka's own tools do: {@code --bootstrap-server} and
 * {@code --command-config client.properties} (SASL, SSL, ...). Without {@code --bootstrap-server}
 * the local stack in {@code --data-dir} is used.
 */
public final class ClusterOptions {

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers. Default: the local stack in --data-dir. Env GPUPOOL_BOOTSTRAP_SERVER.")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Kafka client properties (security.protocol, sasl.*, ssl.*), as for Kafka's own tools.")
    Path commandConfig;

    @Mixin
    DataDirOption dataDir;

    /** Client properties: the command-config file, then the bootstrap servers on top. */
    public Properties clientProperties() {
        final Properties properties = commandConfigOnly();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        if (bootstrapServer == null && !properties.containsKey(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG)
                && dataDir.running().map(StackDescriptor::secure).orElse(false)) {
            // an anonymous client would wait for metadata until it times out, and say nothing about why
            throw new CommandLine.PicocliException("the stack in " + dataDir.path() + " is secured (up --secure): pass"
                    + " --command-config " + dataDir.path().resolve("secure").resolve("<principal>.properties")
                    + ", e.g. submitter.properties to submit, auditor.properties to read");
        }
        return properties;
    }

    /** The {@code --command-config} file's properties alone (empty without one): reading them needs no cluster. */
    public Properties commandConfigOnly() {
        return commandConfig == null ? new Properties() : commandConfig(commandConfig);
    }

    /** A {@code --command-config} file's Kafka (and registry) client properties. */
    public static Properties commandConfig(final Path file) {
        if (!Files.isRegularFile(file)) {
            throw new CommandLine.PicocliException(
                    "--command-config " + file + " does not exist; give the path of a Kafka client properties file");
        }
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read --command-config " + file, e);
        }
        return properties;
    }

    /** {@link #clientProperties()} as the map the Kafka clients and serdes take. */
    public Map<String, Object> clientMap() {
        final Map<String, Object> map = new TreeMap<>();
        clientProperties().forEach((k, v) -> map.put(k.toString(), v));
        return map;
    }

    /** The explicit bootstrap servers, or those of the local stack running in --data-dir. */
    public String bootstrapServers() {
        if (bootstrapServer != null && !bootstrapServer.isBlank()) {
            return bootstrapServer.trim();
        }
        final Optional<StackDescriptor> running = dataDir.running();
        return running.map(StackDescriptor::bootstrapServers).orElseThrow(() -> new CommandLine.PicocliException(
                "no local stack runs in " + dataDir.path() + ": start one with `gpupool up --data-dir " + dataDir.path()
                        + "`, or pass --bootstrap-server HOST:PORT"));
    }

    public DataDirOption dataDir() {
        return dataDir;
    }
}
