package io.gpupool.cli.up;

import io.gpupool.localstack.LocalStack;
import java.nio.file.Files;
import java.nio.file.Path;

/** The broker and the registry, with the descriptor that lets other tools find them. */
public final class StackService implements UpService {
    /** What a Kafka broker leaves in its log directory when it stops cleanly (and removes when it starts). */
    static final String CLEAN_SHUTDOWN_MARKER = ".kafka_cleanshutdown";

    @Override
    public String name() {
        return "local stack";
    }

    @Override
    public AutoCloseable start(final UpContext context) {
        final long began = System.nanoTime();
        final Path logDirs = context.settings().broker().layout().logDirs();
        if (Files.isDirectory(logDirs) && !Files.exists(logDirs.resolve(CLEAN_SHUTDOWN_MARKER))) {
            // the longest silence of a restart after a kill: the broker checks every log segment first
            context.out().printf("  broker     starting: its last run did not stop cleanly, it recovers its logs first%n");
            context.out().flush();
        }
        final LocalStack stack = LocalStack.start(context.settings());
        context.stackStarted(stack.descriptor());
        context.out().printf("  broker     %s  (%s, %.1f s)%n", stack.bootstrapServers(),
                stack.broker().formattedNow() ? "new data directory, formatted" : "reused data directory",
                (System.nanoTime() - began) / 1e9);
        context.out().printf("  registry   %s%n", stack.registryUrl().orElse("(not available in this build)"));
        context.out().flush();
        return stack;
    }
}
