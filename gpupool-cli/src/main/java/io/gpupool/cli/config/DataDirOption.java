package io.gpupool.cli.config;

import io.gpupool.localstack.LocalStack;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.localstack.StackHandle;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --data-dir}: where the local stack keeps its data and its {@code stack.properties}.
 * Every command that talks to the local stack mixes this in, so users never copy ports around.
 */
public final class DataDirOption {

    public static final String DEFAULT = ".gpupool";

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = DEFAULT,
            description = "Data directory of the local stack (broker data, registry, logs, stack.properties). "
                    + "Default: ${DEFAULT-VALUE} in the current directory; env GPUPOOL_DATA_DIR.")
    Path dataDir;

    public Path path() {
        return dataDir.toAbsolutePath().normalize();
    }

    /**
     * The stack running in this directory, or a new one started for the caller (stopped when the
     * handle is closed, and with the caller's JVM at the latest).
     */
    public StackHandle connectOrStart() {
        return LocalStack.connectOrStart(path());
    }

    /** The stack running in this directory, if its broker answers. */
    public Optional<StackDescriptor> running() {
        return LocalStack.findRunning(path());
    }
}
