package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.NodeCommand;
import java.util.List;

/**
 * What the sinks were told (every node command, of all pools: an event is placed in a pool by the
 * command it names) and what they reported (every job event). Both topics have a retention period:
 * {@code commandsCompleteFromMs} and {@code eventsCompleteFromMs} say from which moment each still
 * holds everything ({@link Long#MIN_VALUE}: nothing was deleted), so that the check judges no moment
 * whose records may be gone.
 */
public record SinkHistory(List<NodeCommand> commands, List<ReportedEvent> events, long commandsCompleteFromMs,
                          long eventsCompleteFromMs) {

    public SinkHistory {
        commands = List.copyOf(commands);
        events = List.copyOf(events);
    }

    /** A history nothing was deleted from. */
    public static SinkHistory complete(final List<NodeCommand> commands, final List<ReportedEvent> events) {
        return new SinkHistory(commands, events, Long.MIN_VALUE, Long.MIN_VALUE);
    }

    /** Whether every command ever sent is still on record (then an event naming an unknown one is an orphan). */
    public boolean commandsComplete() {
        return commandsCompleteFromMs == Long.MIN_VALUE;
    }
}
