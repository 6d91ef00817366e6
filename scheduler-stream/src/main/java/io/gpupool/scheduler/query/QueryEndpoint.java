package io.gpupool.scheduler.query;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Where a scheduler started for a local stack serves its queries: it writes its base URL into
 * {@code <data-dir>/scheduler.url}, so {@code gpupool queue} and {@code gpupool explain} find it by
 * --data-dir, as every other command finds the broker.
 */
public final class QueryEndpoint {
    public static final String FILE = "scheduler.url";

    private QueryEndpoint() {
    }

    public static void publish(final Path dataDir, final String baseUrl) {
        try {
            Files.createDirectories(dataDir);
            final Path tmp = dataDir.resolve(FILE + ".tmp");
            Files.writeString(tmp, baseUrl + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, dataDir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dataDir.resolve(FILE), e);
        }
    }

    /** Removes the file if it still names {@code baseUrl} (another scheduler may have replaced it). */
    public static void withdraw(final Path dataDir, final String baseUrl) {
        final Optional<String> current = find(dataDir);
        if (current.isPresent() && current.get().equals(baseUrl)) {
            try {
                Files.deleteIfExists(dataDir.resolve(FILE));
            } catch (IOException e) {
                // a stale file is harmless: readers get a connection error that names it
            }
        }
    }

    public static Optional<String> find(final Path dataDir) {
        final Path f = dataDir.resolve(FILE);
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        try {
            final String url = Files.readString(f, StandardCharsets.UTF_8).trim();
            return url.isEmpty() ? Optional.empty() : Optional.of(url);
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
