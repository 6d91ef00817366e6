package io.gpupool.deploy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * System binaries the deployment tests run (promtool, prometheus, docker-compose). In CI (env CI
 * set) a missing binary fails the test, since .ci/run installs them; elsewhere it skips with how
 * to install it.
 */
final class Binaries {
    private Binaries() {
    }

    static Path require(final String name, final String debianPackage) {
        final Optional<Path> found = find(name);
        if (found.isPresent()) {
            return found.get();
        }
        final String message = name + " is not installed: apt-get install -y " + debianPackage
                + " (.ci/run installs it in CI)";
        if (System.getenv("CI") != null) {
            Assertions.fail(message);
        }
        Assumptions.abort(message);
        throw new AssertionError("unreachable");
    }

    static Optional<Path> find(final String name) {
        final String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (final String dir : path.split(File.pathSeparator)) {
            final Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
