package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.journal.JournalRecord;

import io.gpupool.avro.NodeCommand;
import java.util.List;

/**
 * A recorded node command that the re-run placer did not emit (or emitted differently), or one it
 * emitted that was never recorded; {@code recorded} or {@code recomputed} is null when the other side
 * has no counterpart.
 */
public record CommandDivergence(JournalRecord entry, String commandId, NodeCommand recorded, NodeCommand recomputed,
                                List<String> fieldDiffs) {

    public CommandDivergence {
        fieldDiffs = List.copyOf(fieldDiffs);
    }

    public String describe() {
        final NodeCommand any = recorded != null ? recorded : recomputed;
        final StringBuilder sb = new StringBuilder();
        sb.append("first node command divergence: command ").append(commandId);
        if (any != null) {
            sb.append(" (").append(any.getType()).append(" to node ").append(any.getNodeId()).append(')');
        }
        sb.append('\n');
        Divergence.appendEvidence(sb, entry, recorded, recomputed, fieldDiffs);
        return sb.toString();
    }
}
