package io.gpupool.scheduler.stream;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import java.util.List;

/**
 * What applying one journal entry produced, as wire records, in order.
 *
 * @param submittedJob the job id when the entry was a job submit (its first decision is in here)
 */
public record Applied(List<PlacementDecision> decisions, List<NodeCommand> commands, String submittedJob) {
    static final Applied NOTHING = new Applied(List.of(), List.of(), null);

    public Applied {
        decisions = List.copyOf(decisions);
        commands = List.copyOf(commands);
    }
}
