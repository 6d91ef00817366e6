package io.gpupool.scheduler.audit;

import java.util.Map;

/**
 * What an audit found about the node commands: how many recorded commands were compared with the
 * recomputed ones in the audited range, how many matched byte for byte, and the first that did not.
 *
 * @param audited      false when no recorded commands were given (decisions only)
 * @param whyNot       when not audited, why (for the report), or null
 * @param completeFrom per journal partition, the offset from which commands were on record (see
 *                     {@link RecordedCommands})
 */
public record CommandAudit(boolean audited, String whyNot, long compared, long matched, long divergent,
                           CommandDivergence first, Map<Integer, Long> completeFrom) {
    public static final CommandAudit NONE = new CommandAudit(false, null, 0, 0, 0, null, Map.of());

    public CommandAudit {
        completeFrom = Map.copyOf(completeFrom);
    }
}
