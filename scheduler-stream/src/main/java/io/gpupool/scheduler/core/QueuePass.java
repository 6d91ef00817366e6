package io.gpupool.scheduler.core;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One pass over the waiting jobs in queue order, placing what fits. A shape that failed is not
 * tried again in the same pass (nothing was freed in between).
 */
final class QueuePass {
    private final PoolEngine engine;
    private final PoolState st;
    private final EngineConfig cfg;
    private final Placer placer;

    QueuePass(final PoolEngine engine, final PoolState st, final EngineConfig cfg, final Placer placer) {
        this.engine = engine;
        this.st = st;
        this.cfg = cfg;
        this.placer = placer;
    }

    void run() {
        if (st.queue.isEmpty()) {
            return;
        }
        final List<Job> order = QueueOrder.order(st.queue, st, cfg);
        final Set<Object> failed = order.size() > 1 ? new HashSet<>() : null;
        for (final Job j : order) {
            if (j.state != JobState.QUEUED || overQuota(j)) {
                continue;
            }
            final Object shape = failed == null ? null : shapeKey(j.spec);
            if (failed != null && failed.contains(shape)) {
                continue;
            }
            final Candidate c = placer.place(j.spec);
            if (c != null) {
                engine.allocate(j, c);
            } else if (failed != null) {
                failed.add(shape);
            }
        }
    }

    /** The tenant's hard cap would be exceeded. */
    boolean overQuota(final Job j) {
        final TenantConfig t = cfg.tenant(j.spec.tenant());
        return t.maxGpus() != Integer.MAX_VALUE
                && st.fairShare.heldMilli(j.spec.tenant()) + j.spec.totalGpuMilli() > t.maxGpus() * 1000L;
    }

    /** Why a waiting job waits, as of now. */
    Reason reasonFor(final Job j, final Explainer explainer) {
        if (overQuota(j)) {
            final TenantConfig t = cfg.tenant(j.spec.tenant());
            return new Reason(ReasonCode.QUOTA_EXHAUSTED, "tenant " + j.spec.tenant() + " holds "
                    + st.fairShare.heldMilli(j.spec.tenant()) / 1000.0 + " GPUs of its cap " + t.maxGpus()
                    + "; this job needs " + j.spec.totalGpuMilli() / 1000.0,
                    Map.of("tenant", j.spec.tenant(), "cap_gpus", Integer.toString(t.maxGpus())));
        }
        if (placer.place(j.spec) != null) {
            return Reason.of(ReasonCode.WAITING_FOR_HIGHER_PRIORITY,
                    "fits now but waits behind jobs ahead of it in the queue");
        }
        return explainer.whyNot(j.spec);
    }

    /** Null when the job can still meet its deadline (or has none). */
    Reason deadlineProblem(final Job j) {
        if (j.spec.deadlineMs() <= 0) {
            return null;
        }
        final long estimate = st.estimator.estimate(j.spec, cfg.defaultRuntimeMs());
        if (st.nowMs + estimate <= j.spec.deadlineMs()) {
            return null;
        }
        return new Reason(ReasonCode.DEADLINE_UNREACHABLE, "deadline " + j.spec.deadlineMs()
                + " cannot be met: now " + st.nowMs + " + estimated runtime " + estimate,
                Map.of("deadline_ms", Long.toString(j.spec.deadlineMs()), "estimate_ms", Long.toString(estimate)));
    }

    /** Reports (once) waiting jobs that can no longer meet their deadline; rejects those that asked. */
    void checkDeadlines() {
        for (final Job j : List.copyOf(st.queue)) {
            if (j.deadlineMissReported) {
                continue;
            }
            final Reason late = deadlineProblem(j);
            if (late == null) {
                continue;
            }
            j.deadlineMissReported = true;
            if (j.spec.rejectIfLate()) {
                st.queue.remove(j);
                engine.finish(j, JobState.REJECTED);
                engine.decide(j.id(), DecisionKind.REJECTED, List.of(), 0, late, "", j);
            } else {
                engine.decide(j.id(), DecisionKind.QUEUED, List.of(), 0, late, "", j);
            }
        }
    }

    private static Object shapeKey(final JobSpec s) {
        return List.of(s.allowedModels(), s.nodes(), s.gpusPerNode(), s.gpuMilli(), s.gpuMemoryMib(),
                s.cpuMilliPerNode(), s.memoryMibPerNode(), s.topology(), s.topologyRequired(), s.network());
    }
}
