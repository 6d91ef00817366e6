package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;

/**
 * What the input being applied has caused so far: its decisions and node instructions, in the
 * order they happened, and what the engine made of a job report it did not apply. Every rule of
 * the engine writes here; {@link PoolEngine#apply} turns it into the input's {@link EngineOutput}.
 */
final class Outcome {
    private final PoolState st;
    private final EngineConfig cfg;
    private final List<Decision> decisions = new ArrayList<>();
    private final List<NodeInstruction> commands = new ArrayList<>();
    private JobEventNote eventNote;
    /** The timestamp of the input being applied: every decision it causes carries it. */
    private long inputTs;

    Outcome(final PoolState st, final EngineConfig cfg) {
        this.st = st;
        this.cfg = cfg;
    }

    /** Forgets the previous input's outcome. */
    void begin(final long timestampMs) {
        decisions.clear();
        commands.clear();
        eventNote = null;
        inputTs = timestampMs;
    }

    EngineOutput output() {
        if (decisions.isEmpty() && commands.isEmpty() && eventNote == null) {
            return EngineOutput.EMPTY;
        }
        return new EngineOutput(decisions, commands, eventNote);
    }

    /** Records a decision (the next of the pool's sequence); {@code job}, when given, remembers it. */
    Decision decide(final String jobId, final DecisionKind kind, final List<PlacementPart> placement,
                    final double score, final Reason reason, final String causedBy, final Job job) {
        final long seq = ++st.decisionSeq;
        final Decision d = new Decision(cfg.poolId() + "-" + seq, seq, inputTs, jobId, kind, placement, score,
                cfg.policy().policyName(), reason, causedBy);
        decisions.add(d);
        if (job != null) {
            job.lastDecision = d;
            if (kind == DecisionKind.QUEUED || kind == DecisionKind.REJECTED) {
                job.currentReason = reason;
            }
        }
        return d;
    }

    /** Tells the node of each part what to do with it, for decision {@code decisionId} about placement {@code placementId}. */
    void instruct(final List<PlacementPart> parts, final InstructionKind kind, final String jobId,
                  final String decisionId, final String placementId) {
        for (final PlacementPart a : parts) {
            commands.add(new NodeInstruction(a.nodeId(), kind, jobId, decisionId, placementId, a));
        }
    }

    /** What the engine made of the job report being applied, when it did not apply it. */
    void note(final JobEventNote note) {
        eventNote = note;
    }
}
