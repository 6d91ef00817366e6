package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One pass over the waiting jobs in policy order ({@link WaitingQueue}). A job that fits is placed,
 * unless a head-of-queue reservation stands and it would delay it (EASY backfill). A blocked job
 * may preempt lower-priority work ({@link VictimSearch}), or, bounded, have preemptible jobs moved
 * to free a leaf (consolidation); otherwise the first blocked job reserves. A shape that failed is
 * not tried again in the same pass (nothing was freed in between).
 */
final class QueuePass {
    /**
     * Running jobs taken off (in order of expected end) when looking for the reserved start; a head
     * that needs more than this many to end first gets no reservation (its reason still says why it waits).
     */
    private static final int MAX_RESERVATION_SEARCH = 4096;

    /** Preemption searches per pass: bounds the work a single input can cause. */
    private static final int PREEMPTION_ATTEMPTS_PER_PASS = 4;

    private final PoolEngine engine;
    private final PoolState st;
    private final EngineConfig cfg;
    private final PlacementSearch placer;
    private final VictimSearch victims;
    private final ReservationPlanner planner;

    QueuePass(final PoolEngine engine, final PoolState st, final EngineConfig cfg, final PlacementSearch placer) {
        this.engine = engine;
        this.st = st;
        this.cfg = cfg;
        this.placer = placer;
        this.victims = new VictimSearch(engine, st, cfg, placer);
        this.planner = new ReservationPlanner(st, placer, this::expectedEnd);
    }

    /** The pass's planner (tests compare its kept orders with a fresh walk). */
    ReservationPlanner planner() {
        return planner;
    }

    /** Capacity may be lost or the inventory or fabric changed: see {@link ReservationPlanner#forget}. */
    void forgetReadiness() {
        planner.forget();
    }

    void run() {
        st.reservation = null;
        if (st.queue.isEmpty()) {
            return;
        }
        // a second round lets jobs requeued by preemption or consolidation find room at once
        if (round() && !st.queue.isEmpty()) {
            round();
        }
    }

    /**
     * One round; true when it evicted something (preemption or consolidation). Jobs come in policy
     * order, read lazily. A shape that failed is not read again in the round (nothing is freed during
     * a round except by eviction, which brings every shape back), nor one that backfill refuses for
     * every waiting job of it (until something is placed): the round ends when no other job is left.
     */
    private boolean round() {
        final long round = ++st.rounds;
        final WaitingQueue.Walk order = st.queue.walk(st, cfg);
        /* shapes the backfill rule refused, with the least estimate refused: same candidate, longer runs fail too */
        final Map<Object, Long> refused = new HashMap<>();
        final long[] leastLearned = {-1}; // computed once, when first needed
        Reservation reservation = null;
        Object reservedShape = null;
        Job reserved = null;
        int preemptionAttempts = 0;
        boolean evicted = false;
        for (Job j = order.next(); j != null; j = order.next()) {
            if (j.state != JobState.QUEUED || j.enqueuedInRound == round || overQuota(j)) {
                continue; // placed or gone meanwhile, requeued by this round, or over its cap
            }
            final Long refusedAt = refused.get(j.shape);
            final long estimate = reservation == null ? 0 : st.estimator.estimate(j.spec, cfg.defaultRuntimeMs());
            if (refusedAt != null && estimate >= refusedAt) {
                continue;
            }
            final Candidate c = placer.place(j.spec);
            if (c != null) {
                if (reservation == null) {
                    engine.allocate(j, c);
                    refused.clear(); // the pool changed: candidates may differ
                    order.resumeRefused();
                } else if (backfillFits(j, c, reservation)) {
                    st.backfillCheckedAgainst = reservedShape; // EASY: this placement cannot delay that plan
                    try {
                        engine.allocate(j, c);
                    } finally {
                        st.backfillCheckedAgainst = null;
                    }
                    refused.clear();
                    order.resumeRefused();
                } else {
                    refused.merge(j.shape, estimate, Math::min);
                    final long least = st.queue.leastEstimate(j.shape, () -> {
                        if (leastLearned[0] < 0) {
                            leastLearned[0] = st.estimator.leastLearned(cfg.defaultRuntimeMs());
                        }
                        return leastLearned[0];
                    });
                    if (least >= refused.get(j.shape)) {
                        order.refuse(j.shape); // no waiting job of this shape is short enough
                    }
                }
                continue;
            }
            order.fail(j.shape);
            if (cfg.preemption() && preemptionAttempts < PREEMPTION_ATTEMPTS_PER_PASS && victims.anyFor(j, false)) {
                preemptionAttempts++;
                if (victims.evictFor(j, false)) {
                    evicted = true;
                    refused.clear(); // capacity moved
                    order.resume();
                    continue;
                }
            }
            if (reservation == null && cfg.consolidationMaxEvictions() > 0 && scattered(j)
                    && victims.anyFor(j, true) && victims.evictFor(j, true)) {
                evicted = true;
                refused.clear();
                order.resume();
                continue;
            }
            if (reservation == null) {
                if (!cfg.backfill()) {
                    break; // strict order: nothing passes the first blocked job
                }
                reservation = reserve(j);
                reserved = reservation == null ? null : j;
                reservedShape = reservation == null ? null : j.shape;
            }
        }
        if (reserved != null && st.plans.get(reserved.spec, st.nowMs) == null) {
            // a preemption later in the round placed a job on a node of the plan and voided it: plan again, so
            // that the reservation the pass leaves (shown in reasons, kept in the snapshot) is one that holds
            reservation = reserve(reserved);
        }
        st.reservation = reservation;
        if (reserved != null) {
            reserved.currentReason = null; // recomputed on query against the new state
        }
        return evicted;
    }

    /**
     * EASY: a later job may start if it ends before the reserved start or stays off the reserved nodes.
     * An end that saturated ("never") is before no start: such a job only backfills off those nodes.
     */
    private boolean backfillFits(final Job j, final Candidate c, final Reservation r) {
        return backfillFits(j.spec, c, r);
    }

    /** {@link #backfillFits(Job, Candidate, Reservation)} for a request (the advisor asks it of changed ones). */
    boolean backfillFits(final JobSpec s, final Candidate c, final Reservation r) {
        final long end = StreamTime.plus(st.nowMs, st.estimator.estimate(s, cfg.defaultRuntimeMs()));
        if (StreamTime.endsBy(end, r.startAtMs())) {
            return true;
        }
        for (final int slot : c.slots) {
            if (r.nodes().contains(st.node(slot).id())) {
                return false;
            }
        }
        return true;
    }

    /**
     * When could the job start if running jobs end as estimated? Takes running jobs off the pool in
     * order of expected end until the job fits, then puts them all back exactly.
     */
    private Reservation reserve(final Job j) {
        final StandingPlans.Plan standing = st.plans.get(j.spec, st.nowMs);
        if (standing != null) {
            return new Reservation(j.id(), standing.startAtMs(), standing.nodes());
        }
        final Reservation planned = plan(j);
        if (planned != null) {
            st.plans.put(j.spec, planned.startAtMs(), planned.nodes());
        }
        return planned;
    }

    private Reservation plan(final Job j) {
        if (j.spec.gpusPerNode() > 0 && !j.spec.isShare()) {
            return planner.plan(j);
        }
        // shares and CPU-only jobs: simulate the ends (bounded)
        final List<Job> running = new ArrayList<>();
        for (final Job r : st.activeJobs.values()) {
            if (r.state.holdsResources()) {
                running.add(r);
            }
        }
        final long[] ends = new long[running.size()];
        final Integer[] idx = new Integer[running.size()];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
            ends[i] = expectedEnd(running.get(i));
        }
        Arrays.sort(idx, (a, b) -> ends[a] != ends[b] ? Long.compare(ends[a], ends[b])
                : Long.compare(running.get(a).submitSeq, running.get(b).submitSeq));
        final long need = (long) j.spec.nodes() * j.spec.gpusPerNode();
        long freed = freeHealthyOfModels(j.spec);
        final List<Job> detached = new ArrayList<>();
        Reservation out = null;
        try {
            for (int k = 0; k < Math.min(idx.length, MAX_RESERVATION_SEARCH); k++) {
                final Job r = running.get(idx[k]);
                engine.unaccount(r);
                detached.add(r);
                freed += (long) r.spec.nodes() * r.spec.gpusPerNode();
                final boolean sameEndNext = k + 1 < idx.length && ends[idx[k + 1]] == ends[idx[k]];
                if (sameEndNext || freed < need) {
                    continue; // cheap necessary condition first; jobs ending together count together
                }
                final Candidate c = placer.place(j.spec);
                if (c != null) {
                    final List<String> nodes = new ArrayList<>(c.slots.length);
                    for (final int s : c.slots) {
                        nodes.add(st.node(s).id());
                    }
                    out = new Reservation(j.id(), ends[idx[k]], nodes);
                    break;
                }
            }
        } finally {
            for (int k = detached.size() - 1; k >= 0; k--) {
                engine.reaccount(detached.get(k));
            }
        }
        return out;
    }

    long expectedEnd(final Job r) {
        final long start = r.startedAtMs > 0 ? r.startedAtMs : r.placedAtMs;
        return Math.max(st.nowMs, StreamTime.plus(start, r.estimatedRuntimeMs));
    }

    /** Free healthy whole GPUs of the models the job may use. */
    long freeHealthyOfModels(final JobSpec s) {
        long free = 0;
        for (final int m : placer.models(s)) {
            for (int b = 1; b <= NodeSpec.MAX_GPUS_PER_NODE; b++) {
                free += (long) b * st.index.modelCount(m, b);
            }
        }
        return free;
    }

    /** Enough free GPUs in total, only not together: what consolidation can fix. */
    private boolean scattered(final Job j) {
        return j.spec.gpusPerNode() > 0 && !j.spec.isShare()
                && freeHealthyOfModels(j.spec) >= (long) j.spec.nodes() * j.spec.gpusPerNode();
    }

    /** The tenant's hard cap would be exceeded. */
    boolean overQuota(final Job j) {
        return overQuota(j.spec);
    }

    /** The tenant's hard cap would be exceeded by this request. */
    boolean overQuota(final JobSpec s) {
        final TenantConfig t = cfg.tenant(s.tenant());
        return t.maxGpus() != Integer.MAX_VALUE
                && st.fairShare.heldMilli(s.tenant()) + s.totalGpuMilli() > t.maxGpus() * 1000L;
    }

    /** Why a waiting job waits, as of now. */
    Reason reasonFor(final Job j, final Explainer explainer) {
        if (overQuota(j)) {
            final TenantConfig t = cfg.tenant(j.spec.tenant());
            return new Reason(ReasonCode.QUOTA_EXHAUSTED, "tenant " + j.spec.tenant() + " holds "
                    + DecimalText.of(st.fairShare.heldMilli(j.spec.tenant()) / 1000.0) + " GPUs of its cap " + t.maxGpus()
                    + "; this job needs " + DecimalText.of(j.spec.totalGpuMilli() / 1000.0),
                    Map.of("tenant", j.spec.tenant(), "cap_gpus", Integer.toString(t.maxGpus())));
        }
        if (placer.place(j.spec) != null) {
            final Reservation r = st.reservation;
            if (r != null && !r.jobId().equals(j.id())) {
                return new Reason(ReasonCode.RESERVED_FOR_HEAD_OF_QUEUE, "fits now, but would not end before "
                        + r.startAtMs() + " when " + r.jobId() + " is due to start on " + r.nodes(),
                        Map.of("reserved_job", r.jobId(), "reserved_start_ms", Long.toString(r.startAtMs()),
                                "estimate_ms", Long.toString(st.estimator.estimate(j.spec, cfg.defaultRuntimeMs()))));
            }
            return Reason.of(ReasonCode.WAITING_FOR_HIGHER_PRIORITY,
                    "fits now but waits behind jobs ahead of it in the queue");
        }
        final Reason why = explainer.whyNot(j.spec);
        final Reservation r = st.reservation;
        if (r != null && r.jobId().equals(j.id())) {
            final Map<String, String> ev = new LinkedHashMap<>(why.evidence());
            ev.put("reserved_start_ms", Long.toString(r.startAtMs()));
            ev.put("reserved_nodes", String.join(",", r.nodes()));
            return new Reason(why.code(), why.message() + "; reserved to start by " + r.startAtMs() + " on "
                    + r.nodes(), ev);
        }
        return why;
    }

    /** Null when the job can still meet its deadline (or has none). */
    Reason deadlineProblem(final Job j) {
        if (j.spec.deadlineMs() <= 0) {
            return null;
        }
        final long estimate = st.estimator.estimate(j.spec, cfg.defaultRuntimeMs());
        final long end = StreamTime.plus(st.nowMs, estimate);
        if (StreamTime.endsBy(end, j.spec.deadlineMs())) {
            return null;
        }
        return new Reason(ReasonCode.DEADLINE_UNREACHABLE, "deadline " + j.spec.deadlineMs()
                + " cannot be met: now " + st.nowMs + " + estimated runtime " + estimate + " ends "
                + (end == StreamTime.NEVER ? "never" : "at " + end),
                Map.of("deadline_ms", Long.toString(j.spec.deadlineMs()), "estimate_ms", Long.toString(estimate)));
    }

    /**
     * Reports (once) waiting jobs that can no longer meet their deadline; rejects those that asked. Reads
     * only the waiting jobs that have a deadline (a job without one never has a deadline problem).
     */
    void checkDeadlines() {
        for (final Job j : st.queue.withDeadlineInSubmissionOrder()) {
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
                engine.reject(j, late);
            } else {
                engine.decide(j.id(), DecisionKind.QUEUED, List.of(), 0, late, "", j);
            }
        }
    }

    /** What placement and planning read of a job: jobs with equal keys fit (or not) in the same places. */
    static Object shapeKey(final JobSpec s) {
        return List.of(s.allowedModels(), s.nodes(), s.gpusPerNode(), s.gpuMilli(), s.gpuMemoryMib(),
                s.cpuMilliPerNode(), s.memoryMibPerNode(), s.topology(), s.topologyRequired(), s.network());
    }
}
