package io.gpupool.scheduler.core;

import java.util.List;

/**
 * What one input caused, in the order it happened.
 *
 * @param eventNote for a job event the engine did not apply, what it made of it; null otherwise
 */
public record EngineOutput(List<Decision> decisions, List<NodeInstruction> commands, JobEventNote eventNote) {
    public static final EngineOutput EMPTY = new EngineOutput(List.of(), List.of(), null);

    public EngineOutput {
        decisions = List.copyOf(decisions);
        commands = List.copyOf(commands);
    }

    public EngineOutput(final List<Decision> decisions, final List<NodeInstruction> commands) {
        this(decisions, commands, null);
    }

    /** No decision and no command (a job event the engine noted but did not apply is still empty). */
    public boolean isEmpty() {
        return decisions.isEmpty() && commands.isEmpty();
    }
}
