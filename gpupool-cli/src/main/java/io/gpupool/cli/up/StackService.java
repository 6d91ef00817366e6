package io.gpupool.cli.up;

import io.gpupool.localstack.LocalStack;

/** The broker and the registry, with the descriptor that lets other tools find them. */
public final class StackService implements UpService {

    @Override
    public String name() {
        return "local stack";
    }

    @Override
    public AutoCloseable start(final UpContext context) {
        final long began = System.nanoTime();
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
