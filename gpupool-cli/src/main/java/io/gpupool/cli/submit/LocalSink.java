package io.gpupool.cli.submit;

import io.gpupool.sink.apply.ExecApplier;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * What {@code submit} and {@code logs} know of the sink {@code gpupool up} runs: whether it runs jobs' commands
 * as processes or only simulates them, and where the processes' output goes. {@code up} writes it to
 * {@code <data-dir>/sink/sink.properties} with the broker it serves, so that a submit to another cluster
 * is not told about this one.
 */
public final class LocalSink {

    private static final String FILE = "sink.properties";

    private LocalSink() {
    }

    /** The sink's directory in a data directory (its ledger, and logs/ for exec jobs). */
    public static Path directory(final Path dataDir) {
        return dataDir.resolve("sink");
    }

    public static Path logDirectory(final Path dataDir) {
        return directory(dataDir).resolve("logs");
    }

    /** The log file of a job's part on a node, as the exec applier names it. */
    public static Path logFile(final Path dataDir, final String jobId, final String nodeId) {
        return ExecApplier.logFile(logDirectory(dataDir), jobId, nodeId);
    }

    /** Said by {@code up} once its sink runs. */
    public static void publish(final Path dataDir, final String bootstrapServers, final boolean runsCommands) {
        final Properties p = new Properties();
        p.setProperty("bootstrap.servers", bootstrapServers);
        p.setProperty("runs.commands", Boolean.toString(runsCommands));
        try {
            Files.createDirectories(directory(dataDir));
            try (Writer w = Files.newBufferedWriter(directory(dataDir).resolve(FILE))) {
                p.store(w, "the sink of gpupool up: whether it runs jobs' commands (--exec-jobs)");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + directory(dataDir).resolve(FILE), e);
        }
    }

    /** Whether the local sink serving {@code bootstrapServers} runs commands; empty when no such sink is known. */
    static Optional<Boolean> runsCommands(final Path dataDir, final String bootstrapServers) {
        return read(dataDir).filter(p -> bootstrapServers.equals(p.getProperty("bootstrap.servers")))
                .map(p -> Boolean.parseBoolean(p.getProperty("runs.commands")));
    }

    /** Whether the last sink {@code up} ran in this data directory ran commands; empty when none ran. */
    public static Optional<Boolean> runsCommands(final Path dataDir) {
        return read(dataDir).map(p -> Boolean.parseBoolean(p.getProperty("runs.commands")));
    }

    private static Optional<Properties> read(final Path dataDir) {
        final Path file = directory(dataDir).resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        final Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.of(p);
    }
}
