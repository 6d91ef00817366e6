package io.gpupool.scheduler.core;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reservation plans kept between queue passes, by job shape. Planning a start for a blocked job
 * walks every node of the pool; with a standing queue that was the whole cost of every input. A
 * plan is a promise (as in conservative backfill): it stays good while nothing takes its nodes
 * or its start time passes. Jobs ending early only make it pessimistic, never wrong, and a job that
 * then fits is placed by the pass anyway. So a plan is dropped when a job is placed on one of its
 * nodes without having been checked against it, when capacity is lost or the inventory or fabric
 * changes (the engine clears all plans), at every tick (bounding how pessimistic a plan grows), or
 * a while after its start has passed with the job still waiting (the estimates were wrong). Any job of the same
 * shape may use the plan: the planner reads only the shape, never the job's identity.
 */
final class StandingPlans {
    /**
     * How long a plan outlives its start while its job still waits. When running jobs overrun their
     * estimates, every fresh plan starts "now" and would be replanned at the very next input (a walk
     * over the whole pool each time, which stalled the placer); a plan whose start has passed still
     * only lets through jobs that stay off its nodes, which is what a fresh one would do.
     */
    static final long OVERDUE_GRACE_MS = 5_000;

    /** Enough for the shapes that take turns at the head of a mixed queue; the oldest goes first. */
    static final int MAX_PLANS = 8;

    /** A planned start: the job it was made for (its shape is what counts), when, and on which nodes. */
    record Plan(JobSpec exemplar, long startAtMs, List<String> nodes) {
    }

    /** Insertion order, so that eviction and the snapshot are deterministic. */
    private final LinkedHashMap<Object, Plan> byShape = new LinkedHashMap<>();

    /** The plan for this shape if it still holds at {@code nowMs}; else null (and it is dropped). */
    Plan get(final JobSpec shape, final long nowMs) {
        final Object key = QueuePass.shapeKey(shape);
        final Plan p = byShape.get(key);
        if (p != null && nowMs >= StreamTime.plus(p.startAtMs(), OVERDUE_GRACE_MS)) {
            byShape.remove(key);
            return null;
        }
        return p;
    }

    void put(final JobSpec shape, final long startAtMs, final List<String> nodes) {
        final Object key = QueuePass.shapeKey(shape);
        byShape.remove(key);
        byShape.put(key, new Plan(shape, startAtMs, List.copyOf(nodes)));
        if (byShape.size() > MAX_PLANS) {
            final Iterator<Object> oldest = byShape.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    /**
     * A job was placed on these nodes: every plan that counted on one of them is void, except the
     * plan of {@code checkedAgainst} (a shape key, or null), which the job was checked against by
     * the backfill rule and so cannot delay.
     */
    void placedOn(final Set<String> nodeIds, final Object checkedAgainst) {
        final Iterator<Map.Entry<Object, Plan>> it = byShape.entrySet().iterator();
        while (it.hasNext()) {
            final Map.Entry<Object, Plan> e = it.next();
            if (e.getKey().equals(checkedAgainst)) {
                continue;
            }
            for (final String n : e.getValue().nodes()) {
                if (nodeIds.contains(n)) {
                    it.remove();
                    break;
                }
            }
        }
    }

    void clear() {
        byShape.clear();
    }

    /** The plans, oldest first (for the snapshot). */
    List<Plan> plans() {
        return List.copyOf(byShape.values());
    }

    int size() {
        return byShape.size();
    }
}
