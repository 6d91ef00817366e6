package io.gpupool.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A bench's temporary work directory: the state stores of the schedulers and Streams apps it runs, about a
 * gigabyte per run of {@code bench pipeline}. Left behind, a few {@code --repeat 3} series filled a 250 GB disk's
 * /tmp with 34 GB; so it goes when the bench ends, and when its JVM is stopped (Ctrl-C, SIGTERM) before that.
 */
public final class BenchWorkDirectory implements AutoCloseable {
    private final Path path;
    private final Thread onShutdown;
    private volatile boolean kept; // read by the shutdown hook's thread

    private BenchWorkDirectory(final Path path) {
        this.path = path;
        this.onShutdown = new Thread(this::deleteQuietly, "bench-work-directory-cleanup");
        Runtime.getRuntime().addShutdownHook(onShutdown);
    }

    public static BenchWorkDirectory create(final String prefix) throws IOException {
        return new BenchWorkDirectory(Files.createTempDirectory(prefix));
    }

    public Path path() {
        return path;
    }

    /** Leaves the directory in place when closed (a failed check's logs are in it) and says where it is. */
    public void keep(final String why) {
        kept = true;
        System.err.println("bench: " + why + "; its work directory (logs, state) is kept: " + path);
    }

    @Override
    public void close() throws IOException {
        try {
            Runtime.getRuntime().removeShutdownHook(onShutdown);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it deletes the directory
            return;
        }
        if (!kept) {
            delete(path);
        }
    }

    private void deleteQuietly() {
        if (kept) {
            return;
        }
        try {
            delete(path);
        } catch (IOException | UncheckedIOException e) {
            System.err.println("bench: could not delete its work directory " + path + ": " + e);
        }
    }

    /** Deletes {@code root} and everything under it; a file that is already gone is no error. */
    public static void delete(final Path root) throws IOException {
        final List<Path> deepestFirst;
        try (Stream<Path> paths = Files.walk(root)) {
            deepestFirst = paths.sorted(Comparator.reverseOrder()).toList();
        } catch (NoSuchFileException gone) {
            return;
        }
        for (final Path p : deepestFirst) {
            Files.deleteIfExists(p);
        }
    }
}
