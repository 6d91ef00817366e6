package io.gpupool.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository root (set by surefire as gpupool.repo.root) and the deployment files in it. */
final class RepoFiles {
    private RepoFiles() {
    }

    static Path root() {
        final Path root = Path.of(System.getProperty("gpupool.repo.root", "..")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("docker-compose.yml"))) {
            throw new IllegalStateException("not the gpupool repository root (no docker-compose.yml): " + root);
        }
        return root;
    }

    static Path resolve(final String relative) {
        return root().resolve(relative);
    }
}
