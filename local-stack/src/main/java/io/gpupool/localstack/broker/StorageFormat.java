package io.gpupool.localstack.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;

/**
 * Formats the KRaft storage once per data directory with {@code kafka.tools.StorageTool format}.
 * The cluster id is chosen on the first run and kept in the data directory: formatting again
 * with another id would orphan every topic, so a formatted directory is never formatted again.
 */
final class StorageFormat {

    private static final long FORMAT_TIMEOUT_SECONDS = 120;

    private StorageFormat() {
    }

    static boolean isFormatted(final BrokerLayout layout) {
        return Files.isRegularFile(layout.metaProperties());
    }

    /** The kept cluster id, chosen now if this directory has none yet. */
    static String clusterId(final BrokerLayout layout) throws IOException {
        if (Files.isRegularFile(layout.clusterIdFile())) {
            final String kept = Files.readString(layout.clusterIdFile(), StandardCharsets.UTF_8).trim();
            if (!kept.isEmpty()) {
                return kept;
            }
        }
        final String chosen = Uuid.randomUuid().toString();
        Files.createDirectories(layout.kafkaDir());
        Files.writeString(layout.clusterIdFile(), chosen + "\n", StandardCharsets.UTF_8);
        return chosen;
    }

    /** Runs the format tool as a child JVM; its output goes to {@code logs/storage-format.log}. */
    static void format(final BrokerLayout layout, final String heap, final List<String> logFlags, final List<String> extraArguments)
            throws IOException, InterruptedException {
        final String clusterId = clusterId(layout);
        final List<String> arguments = new ArrayList<>(
                List.of("format", "--cluster-id", clusterId, "--config", layout.serverProperties().toString()));
        arguments.addAll(extraArguments);
        final List<String> command = ChildJvm.command(heap, logFlags, "kafka.tools.StorageTool", arguments);
        final Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(layout.formatLog().toFile()))
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        process.getOutputStream().close();
        final boolean finished;
        try {
            finished = process.waitFor(FORMAT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            throw e;
        }
        if (!finished) {
            process.destroyForcibly();
            throw new BrokerException("formatting the KRaft storage took over " + FORMAT_TIMEOUT_SECONDS
                    + " s; see " + layout.formatLog());
        }
        if (process.exitValue() != 0 || !isFormatted(layout)) {
            throw new BrokerException("formatting the KRaft storage failed (exit " + process.exitValue() + "): "
                    + LogTail.of(layout.formatLog(), 20));
        }
    }
}
