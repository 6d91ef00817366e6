package io.gpupool.localstack;

import java.util.Optional;

/**
 * A stack found running or started for the caller. Closing it stops the stack only when it was
 * started by this handle; a stack found running belongs to whoever started it.
 */
public final class StackHandle implements AutoCloseable {

    private final StackDescriptor descriptor;
    private final LocalStack owned;

    StackHandle(final StackDescriptor descriptor, final LocalStack owned) {
        this.descriptor = descriptor;
        this.owned = owned;
    }

    public StackDescriptor descriptor() {
        return descriptor;
    }

    public String bootstrapServers() {
        return descriptor.bootstrapServers();
    }

    public Optional<String> registryUrl() {
        return descriptor.registryUrl();
    }

    /** True when this handle started the stack (and will stop it). */
    public boolean startedHere() {
        return owned != null;
    }

    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
    }
}
