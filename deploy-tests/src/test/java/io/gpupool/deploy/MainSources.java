package io.gpupool.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The text of every module's main Java sources, to find meter names registered there. */
final class MainSources {
    private MainSources() {
    }

    static String text() throws IOException {
        try (Stream<Path> files = Files.walk(RepoFiles.root(), 12)) {
            return files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .map(MainSources::read).collect(Collectors.joining("\n"));
        }
    }

    private static String read(final Path p) {
        try {
            return Files.readString(p);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
