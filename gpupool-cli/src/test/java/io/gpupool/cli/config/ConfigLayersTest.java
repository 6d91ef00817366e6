package io.gpupool.cli.config;

import io.gpupool.cli.Gpupool;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** Flags, then GPUPOOL_* environment, then the --config file (command-scoped key first), then the built-in default. */
class ConfigLayersTest {

    @Command(name = "probe")
    static final class Probe implements Runnable {
        @Mixin DataDirOption dataDir;
        @Mixin ConfigFileOption config;
        @Option(names = "--bootstrap-server") String bootstrap;
        @Option(names = "--port", defaultValue = "0") int port;

        @Override
        public void run() {
        }
    }

    @Command(name = "gpupool", subcommands = Probe.class)
    static final class Root implements Runnable {
        @Override
        public void run() {
        }
    }

    @TempDir
    Path dir;

    private Probe parse(final Map<String, String> env, final String... args) {
        final CommandLine cli = CliSetup.configure(new CommandLine(new Root()), args, env);
        final CommandLine.ParseResult result = cli.parseArgs(args);
        return (Probe) result.subcommand().commandSpec().userObject();
    }

    @Test
    void theBuiltInDefaultAppliesWhenNothingElseSaysSo() {
        final Probe probe = parse(Map.of(), "probe");
        assertThat(probe.dataDir.path()).isEqualTo(Path.of(".gpupool").toAbsolutePath());
        assertThat(probe.port).isZero();
        assertThat(probe.bootstrap).isNull();
    }

    @Test
    void eachLayerWinsOverTheOnesBelowIt() throws Exception {
        final Path file = dir.resolve("gpupool.properties");
        Files.writeString(file, "data-dir=/from/file\nprobe.port=7\nport=8\nbootstrap-server=file:9092\n");

        final Probe fileOnly = parse(Map.of(), "probe", "--config", file.toString());
        assertThat(fileOnly.dataDir.path()).isEqualTo(Path.of("/from/file"));
        assertThat(fileOnly.port).as("command-scoped key wins over the plain one").isEqualTo(7);
        assertThat(fileOnly.bootstrap).isEqualTo("file:9092");

        final Map<String, String> env = Map.of("GPUPOOL_DATA_DIR", "/from/env", "GPUPOOL_PORT", "9");
        final Probe envOverFile = parse(env, "probe", "--config=" + file);
        assertThat(envOverFile.dataDir.path()).isEqualTo(Path.of("/from/env"));
        assertThat(envOverFile.port).isEqualTo(9);
        assertThat(envOverFile.bootstrap).as("file still fills what env leaves open").isEqualTo("file:9092");

        final Probe flagOverAll = parse(env, "probe", "--config", file.toString(), "--data-dir", "/from/flag", "--port", "10");
        assertThat(flagOverAll.dataDir.path()).isEqualTo(Path.of("/from/flag"));
        assertThat(flagOverAll.port).isEqualTo(10);
    }

    @Test
    void theConfigFileCanComeFromTheEnvironment() throws Exception {
        final Path file = dir.resolve("env.properties");
        Files.writeString(file, "data-dir=/via/env/file\n");
        final Probe probe = parse(Map.of("GPUPOOL_CONFIG", file.toString()), "probe");
        assertThat(probe.dataDir.path()).isEqualTo(Path.of("/via/env/file"));
    }

    @Test
    void environmentNamesFollowTheOptionNames() {
        assertThat(ConfigLayers.envName("bootstrap-server")).isEqualTo("GPUPOOL_BOOTSTRAP_SERVER");
        assertThat(ConfigLayers.envName("data-dir")).isEqualTo("GPUPOOL_DATA_DIR");
    }

    @Test
    void theRealCommandLineUsesTheLayersToo() {
        final String[] args = {"up", "--help"};
        final CommandLine cli = Gpupool.commandLine(args, Map.of("GPUPOOL_DATA_DIR", "/env/dir"));
        final StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        assertThat(cli.execute(args)).isZero();
        assertThat(cli.getSubcommands().get("up").getCommandSpec().findOption("--data-dir").getValue().toString())
                .isEqualTo("/env/dir");
    }

    @Test
    void configFileEntriesArePassedOnForTopicSettings() throws Exception {
        final Path file = dir.resolve("topics.properties");
        Files.writeString(file, "gpupool.topic.journal.name=prod.journal\n");
        final ConfigLayers layers = ConfigLayers.of(List.of("topics", "--config", file.toString()), Map.of());
        assertThat(layers.fileEntries()).containsEntry("gpupool.topic.journal.name", "prod.journal");
    }
}
