package io.gpupool.registry;

import java.util.List;

/** Answer of a compatibility test: compatible or not, with the server's messages when verbose. */
public final class CompatibilityResult {
    private final boolean compatible;
    private final List<String> messages;

    public CompatibilityResult(final boolean compatible, final List<String> messages) {
        this.compatible = compatible;
        this.messages = List.copyOf(messages);
    }

    public boolean isCompatible() {
        return compatible;
    }

    public List<String> messages() {
        return messages;
    }

    @Override
    public String toString() {
        return (compatible ? "compatible" : "incompatible") + (messages.isEmpty() ? "" : " " + messages);
    }
}
