package io.gpupool.scheduler.core;

import java.util.List;

/** One job as queries see it: state, placement, the last decision and the current reason. */
public record JobView(String jobId, String tenant, PriorityClass priorityClass, int priority, JobState state,
                      List<NodeAssignment> placement, long submittedMs, long placedMs, int evictions,
                      String preemptedBy, Decision lastDecision, Reason currentReason,
                      long runtimeEstimateMs) {
    public JobView {
        placement = List.copyOf(placement);
    }
}
