package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Objects;

/**
 * One scheduling decision about one job.
 *
 * @param decisionId  pool id + "-" + sequence number: deterministic
 * @param sequence    the engine's decision counter
 * @param timestampMs stream time of the input that caused it
 * @param placement   the per-node assignments (PLACED, and what was freed for EVICTED/RELEASED/CANCELLED)
 * @param score       the policy's score of the placement (lower is better), 0 otherwise
 * @param policy      the scoring policy name
 * @param causedBy    for EVICTED by preemption: the job that preempted it; else empty
 */
public record Decision(String decisionId, long sequence, long timestampMs, String jobId, DecisionKind kind,
                       List<PlacementPart> placement, double score, String policy, Reason reason,
                       String causedBy) {
    public Decision {
        Objects.requireNonNull(decisionId, "decisionId");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(reason, "reason");
        placement = List.copyOf(placement);
        policy = policy == null ? "" : policy;
        causedBy = causedBy == null ? "" : causedBy;
    }

    @Override
    public String toString() {
        return decisionId + " " + kind + " " + jobId + (placement.isEmpty() ? "" : " " + placement)
                + " " + reason + (causedBy.isEmpty() ? "" : " by " + causedBy);
    }
}
