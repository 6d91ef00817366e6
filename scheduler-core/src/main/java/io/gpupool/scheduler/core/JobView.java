package io.gpupool.scheduler.core;

import java.util.List;

/**
 * One job as queries see it: state, placement, the last decision and the current reason.
 *
 * @param placementId   the placement it holds resources under ("" when none)
 * @param staleEvents   job events of earlier placements that arrived late (they changed nothing)
 * @param refusedEvents job events refused for naming a placement or node never commanded for the job
 * @param lastRefusal   why the last refused event was refused ("" when none was)
 * @param startedMs     when a sink reported the current placement running (0 when it has not)
 */
public record JobView(String jobId, String tenant, PriorityClass priorityClass, int priority, JobState state,
                      List<PlacementPart> placement, long submittedMs, long placedMs, int evictions,
                      String preemptedBy, Decision lastDecision, Reason currentReason,
                      long runtimeEstimateMs, String placementId, int staleEvents, int refusedEvents,
                      String lastRefusal, long startedMs) {
    public JobView {
        placement = List.copyOf(placement);
    }
}
