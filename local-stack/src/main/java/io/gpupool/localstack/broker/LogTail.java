package io.gpupool.localstack.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The last lines of a log file, quoted in error messages so the cause is visible without opening it. */
final class LogTail {

    private LogTail() {
    }

    static String of(final Path log, final int lines) {
        try {
            if (!Files.isRegularFile(log)) {
                return "(no log at " + log + ")";
            }
            final List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            final List<String> tail = all.subList(Math.max(0, all.size() - lines), all.size());
            return "last lines of " + log + ":\n  " + String.join("\n  ", tail);
        } catch (IOException e) {
            return "(could not read " + log + ": " + e.getMessage() + ")";
        }
    }
}
