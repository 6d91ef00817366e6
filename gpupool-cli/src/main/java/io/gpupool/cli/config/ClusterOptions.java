package io.gpupool.cli.config;

import io.gpupool.localstack.StackDescriptor;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
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
        final Properties properties = new Properties();
        if (commandConfig != null) {
            if (!Files.isRegularFile(commandConfig)) {
                throw new CommandLine.PicocliException(
                        "--command-config " + commandConfig + " does not exist; give the path of a Kafka client properties file");
            }
            try (Reader reader = Files.newBufferedReader(commandConfig, StandardCharsets.UTF_8)) {
                properties.load(reader);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read --command-config " + commandConfig, e);
            }
        }
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return properties;
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
