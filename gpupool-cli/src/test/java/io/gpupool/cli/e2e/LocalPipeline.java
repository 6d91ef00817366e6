package io.gpupool.cli.e2e;

import io.gpupool.cli.CliRun;
import io.gpupool.cli.up.PipelineOptions;
import io.gpupool.cli.up.PipelineParts;
import io.gpupool.cli.up.PipelineServices;
import io.gpupool.cli.up.SchedulerService;
import io.gpupool.cli.up.ServiceGroup;
import io.gpupool.cli.up.TopicsService;
import io.gpupool.cli.up.UpContext;
import io.gpupool.cli.up.UpService;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;

/**
 * The pipeline {@code gpupool up} wires (topics, scheduler, fleet, sink, by the same services), on the test
 * stack, under topic names of its own; a config file names them for the command line, and the data directory
 * {@code <dir>/stack} is where the scheduler publishes its query URL and the sink keeps its ledger and logs.
 */
final class LocalPipeline implements AutoCloseable {

    final TopicCatalog catalog;
    final Path configFile;
    final Path dataDir;
    final PipelineParts parts = new PipelineParts();
    private final TestStack stack;
    private ServiceGroup group;

    private LocalPipeline(final TestStack stack, final TopicCatalog catalog, final Path configFile, final Path dataDir) {
        this.stack = stack;
        this.catalog = catalog;
        this.configFile = configFile;
        this.dataDir = dataDir;
    }

    /** Starts it with {@code up}'s pipeline flags (--nodes, --exec-jobs, ...). */
    static LocalPipeline start(final TestStack stack, final Path dir, final String name, final String... pipelineFlags)
            throws Exception {
        final String prefix = stack.uniqueName(name);
        final Map<String, String> names = OnStackPipeline.topicNames(prefix);
        final Path configFile = dir.resolve("gpupool.properties");
        final Properties p = new Properties();
        p.putAll(names);
        try (var w = Files.newBufferedWriter(configFile)) {
            p.store(w, name + " topic names");
        }
        final PipelineOptions options = new PipelineOptions();
        new CommandLine(options).parseArgs(pipelineFlags);
        final Path dataDir = dir.resolve("stack");
        final UpContext context = OnStackPipeline.context(stack, dataDir, names);
        // its own application id: pipelines on the shared stack must not restore each other's stores
        final List<UpService> services = new ArrayList<>(List.of(new TopicsService(), new SchedulerService(prefix + "-scheduler")));
        final LocalPipeline pipeline = new LocalPipeline(stack, TopicCatalog.defaults().withOverrides(names), configFile,
                dataDir);
        services.addAll(PipelineServices.of(options, pipeline.parts, new PrintWriter(new StringWriter(), true)));
        pipeline.group = new ServiceGroup(services);
        pipeline.group.start(context);
        return pipeline;
    }

    /** What a command printed and returned. */
    record Cli(int code, String out, String err) {
    }

    /** The options that point a command at this pipeline: the stack's broker and registry, its topics, {@code dataDir}. */
    List<String> options(final Path dataDir) {
        return List.of("--data-dir", dataDir.toString(), "--bootstrap-server", stack.bootstrapServers(), "--registry-url",
                stack.requireRegistryUrl(), "--config", configFile.toString());
    }

    /** The real command line, in this JVM, pointed at this pipeline. */
    Cli cli(final String... args) {
        return cliWith(options(dataDir), args);
    }

    /** The real command line, in this JVM, with {@code options} put before any {@code --}. */
    static Cli cliWith(final List<String> options, final String... args) {
        final List<String> all = new ArrayList<>(List.of(args));
        all.addAll(all.indexOf("--") < 0 ? all.size() : all.indexOf("--"), options);
        final CliRun run = CliRun.of(all.toArray(String[]::new));
        return new Cli(run.exitCode(), run.out(), run.err());
    }

    @Override
    public void close() throws Exception {
        group.close();
    }
}
