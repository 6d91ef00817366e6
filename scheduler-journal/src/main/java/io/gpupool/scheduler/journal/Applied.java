package io.gpupool.scheduler.journal;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.JobEventNote;
import java.util.List;

/**
 * What applying one journal entry produced, as wire records, in order.
 *
 * @param submittedJob the job id when the entry was a job submit (its first decision is in here)
 * @param eventNote    for a job event the engine did not apply (late or refused), what it made of it; else null
 * @param configChange for engine settings that changed the pool's configuration, the change; else null
 * @param skipped      for an entry the engine threw on ({@link SkippedEntry}), the error's class; else null
 */
public record Applied(List<PlacementDecision> decisions, List<NodeCommand> commands, String submittedJob,
                      JobEventNote eventNote, ConfigChange configChange, String skipped) {
    static final Applied NOTHING = new Applied(List.of(), List.of(), null, null);

    public Applied {
        decisions = List.copyOf(decisions);
        commands = List.copyOf(commands);
    }

    public Applied(final List<PlacementDecision> decisions, final List<NodeCommand> commands, final String submittedJob,
                   final JobEventNote eventNote) {
        this(decisions, commands, submittedJob, eventNote, null, null);
    }

    public Applied(final List<PlacementDecision> decisions, final List<NodeCommand> commands, final String submittedJob) {
        this(decisions, commands, submittedJob, null, null, null);
    }

    /** An entry that changed the pool's configuration and produced nothing else. */
    static Applied configChanged(final ConfigChange change) {
        return new Applied(List.of(), List.of(), null, null, change, null);
    }

    /** A skipped entry ({@link SkippedEntry}) and what it produces. */
    static Applied skipped(final List<PlacementDecision> decisions, final String submittedJob, final String error) {
        return new Applied(decisions, List.of(), submittedJob, null, null, error);
    }
}
