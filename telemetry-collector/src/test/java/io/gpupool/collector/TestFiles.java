package io.gpupool.collector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The real captures copied under src/test/resources/telemetry (see the README there). */
public final class TestFiles {
    private TestFiles() {
    }

    public static Path path(final String relative) {
        try {
            return Path.of(TestFiles.class.getResource("/telemetry/" + relative).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("missing test resource telemetry/" + relative, e);
        }
    }

    public static String text(final String relative) {
        try {
            return Files.readString(path(relative), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
