package io.gpupool.cli.e2e;

import io.gpupool.cli.up.PipelineOptions;
import io.gpupool.cli.up.UpContext;
import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.localstack.broker.BrokerSettings;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine;

/**
 * What an on-stack test needs to run {@code gpupool up}'s services on the module's shared stack: topics
 * of its own ({@code <prefix>.<topic id>}), so that test classes of one JVM never read each other's
 * records, the context {@code up} would have after starting the stack, and the simulated fleet.
 */
final class OnStackPipeline {

    private OnStackPipeline() {
    }

    /** Topic name settings: every topic as {@code <prefix>.<id>}. */
    static Map<String, String> topicNames(final String prefix) {
        final Map<String, String> names = new HashMap<>();
        for (final Topic t : Topic.values()) {
            names.put(TopicCatalog.PREFIX + t.id() + ".name", prefix + "." + t.id());
        }
        return names;
    }

    /** The context of a {@code gpupool up} whose stack is the shared one, with these settings. */
    static UpContext context(final TestStack stack, final Path dataDir, final Map<String, String> settings) {
        final UpContext context = new UpContext(new LocalStackSettings(BrokerSettings.defaults(dataDir), 0), settings,
                new PrintWriter(new StringWriter(), true));
        context.stackStarted(new StackDescriptor(dataDir, stack.bootstrapServers(), stack.registryUrl(), -1, -1));
        return context;
    }

    /** A simulated fleet of 8 nodes x 8 GPUs on 2 leaves, in real time (time scale 1), and no job generator. */
    static PipelineOptions smallFleet(final long seed) {
        final PipelineOptions options = new PipelineOptions();
        new CommandLine(options).parseArgs("--nodes", "8", "--gpus-per-node", "8", "--leaves", "2", "--seed",
                Long.toString(seed), "--telemetry-interval", "1s", "--time-scale", "1", "--no-generator",
                "--progress-every", "0s");
        return options;
    }
}
