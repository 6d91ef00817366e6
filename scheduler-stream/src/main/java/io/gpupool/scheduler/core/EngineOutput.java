package io.gpupool.scheduler.core;

import java.util.List;

/** What one input caused, in the order it happened. */
public record EngineOutput(List<Decision> decisions, List<NodeCommand> commands) {
    public static final EngineOutput EMPTY = new EngineOutput(List.of(), List.of());

    public EngineOutput {
        decisions = List.copyOf(decisions);
        commands = List.copyOf(commands);
    }

    public boolean isEmpty() {
        return decisions.isEmpty() && commands.isEmpty();
    }
}
