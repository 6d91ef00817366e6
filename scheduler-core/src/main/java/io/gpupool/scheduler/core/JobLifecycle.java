package io.gpupool.scheduler.core;

import java.util.List;

/**
 * A job's way through the pool: submitted (rejected, placed at once, or queued), cancelled, reported
 * on by the node side, evicted, ended. A report of the node side (STARTED, COMPLETED, FAILED, EVICTED,
 * RELEASED) is applied only to the placement and the nodes it names; otherwise it is noted as STALE
 * (an earlier placement of the job), UNKNOWN_JOB or REFUSED, and changes nothing.
 */
final class JobLifecycle {
    private final PoolState st;
    private final EngineConfig cfg;
    private final Outcome out;
    private final Allocation allocation;
    private final Validator validator;
    private final PlacementSearch placer;
    private final Explainer explainer;
    private final QueuePass pass;

    JobLifecycle(final PoolState st, final EngineConfig cfg, final Outcome out, final Allocation allocation,
                 final Validator validator, final PlacementSearch placer, final Explainer explainer,
                 final QueuePass pass) {
        this.st = st;
        this.cfg = cfg;
        this.out = out;
        this.allocation = allocation;
        this.validator = validator;
        this.placer = placer;
        this.explainer = explainer;
        this.pass = pass;
    }

    /** A new job: rejected, placed at once or queued. Runs its own queue pass, so never asks for one. */
    boolean submit(final JobSpec spec) {
        st.sizeMix.arrived(spec);
        if (st.activeJobs.containsKey(spec.jobId())) {
            // a replayed or duplicated submit must not create a second job; say so, keep the first
            out.decide(spec.jobId(), DecisionKind.REJECTED, List.of(), 0,
                    Reason.of(ReasonCode.DUPLICATE_JOB, "job " + spec.jobId() + " is already known"), "", null);
            return false;
        }
        st.finishedJobs.remove(spec.jobId());
        final Job job = new Job(spec, st.submitSeq++, st.nowMs);
        final Reason never = validator.neverFits(spec);
        if (never != null) {
            reject(job, never);
            return false;
        }
        final Reason late = pass.deadlineProblem(job);
        if (late != null && spec.rejectIfLate()) {
            reject(job, late);
            return false;
        }
        if (cfg.maxWaitingJobs() > 0 && st.queue.size() >= cfg.maxWaitingJobs()) {
            // shed, and say so: a backlog past this drains too late to serve anyone, and costs every decision
            reject(job, Reason.of(ReasonCode.QUEUE_FULL, "pool " + cfg.poolId() + " already has " + st.queue.size()
                    + " waiting jobs, its limit (max-waiting-jobs): the request is shed; submit it again later"));
            return false;
        }
        if (spec.placeNowOrReject()) {
            final Candidate c = placer.place(spec);
            if (c != null) {
                st.activeJobs.put(spec.jobId(), job);
                allocation.allocate(job, c, "");
            } else {
                reject(job, explainer.whyNot(spec));
            }
            return false;
        }
        st.activeJobs.put(spec.jobId(), job);
        enqueue(job);
        pass.run();
        if (job.state == JobState.QUEUED) {
            queued(job);
        }
        return false;
    }

    /** Ends a job that is not live (yet) as REJECTED. */
    void reject(final Job job, final Reason why) {
        finish(job, JobState.REJECTED);
        out.decide(job.id(), DecisionKind.REJECTED, List.of(), 0, why, "", job);
    }

    boolean cancel(final String jobId, final String why) {
        final Job j = st.activeJobs.get(jobId);
        if (j == null) {
            return false;
        }
        final Reason r = Reason.of(ReasonCode.CANCELLED_BY_USER, why.isEmpty() ? "cancelled" : "cancelled: " + why);
        if (j.state == JobState.QUEUED) {
            st.queue.remove(j);
            finish(j, JobState.CANCELLED);
            out.decide(jobId, DecisionKind.CANCELLED, List.of(), 0, r, "", j);
            return false;
        }
        letGo(j, DecisionKind.CANCELLED, r, "", InstructionKind.EVICT);
        finish(j, JobState.CANCELLED);
        return true;
    }

    /**
     * A sink's report about one part of a placement. It is applied only to the placement it names, and
     * only from a node of it: a late event of an earlier placement (the answer to an EVICT, a completion
     * that raced a preemption) is noted as stale and changes nothing; one naming a placement or node never
     * commanded for the job is refused. Either way the job's current placement is untouched.
     */
    boolean report(final EngineInput.JobReport e) {
        final Job j = st.job(e.jobId());
        if (j == null) {
            out.note(new JobEventNote(e.jobId(), JobEventNote.Kind.UNKNOWN_JOB, e.kind() + " about job " + e.jobId()
                    + ", which pool " + cfg.poolId() + " does not know (never placed here, or finished and no longer"
                    + " retained)"));
            return false;
        }
        if (e.placementId().isEmpty()) {
            return refuse(j, e, "the event names no placement");
        }
        if (!e.placementId().equals(j.placementId)) {
            if (j.earlierPlacements.contains(e.placementId())) {
                j.staleEvents++;
                out.note(new JobEventNote(j.id(), JobEventNote.Kind.STALE, e.kind() + " of earlier placement "
                        + e.placementId() + " (now " + (j.placementId.isEmpty() ? "none" : j.placementId) + ", "
                        + j.state + ")"));
                return false;
            }
            return refuse(j, e, "placement " + e.placementId() + " was never made for job " + j.id());
        }
        if (!e.nodeId().isEmpty() && !placedOn(j, e.nodeId())) {
            return refuse(j, e, "node " + e.nodeId() + " is not part of placement " + e.placementId());
        }
        return switch (e.kind()) {
            case STARTED -> started(j, e.timestampMs());
            case COMPLETED, FAILED -> ended(j, e.kind() == EngineInput.JobEventKind.COMPLETED, e.detail());
            case EVICTED -> {
                // the other nodes of a gang still run their parts: they are told to stop too
                evict(j, Reason.of(ReasonCode.EVICTED_BY_NODE, "evicted by the node side"
                        + (e.nodeId().isEmpty() ? "" : " on " + e.nodeId()) + (e.detail().isEmpty() ? "" : ": " + e.detail())), "", true);
                yield true;
            }
            case RELEASED -> refuse(j, e, "RELEASED for placement " + e.placementId() + ", which was never released");
        };
    }

    private boolean started(final Job j, final long atMs) {
        if (j.state == JobState.RUNNING) {
            return false; // another rank of the gang started
        }
        j.state = JobState.RUNNING;
        j.startedAtMs = atMs;
        for (final int slot : j.slots) {
            if (st.node(slot) != null) {
                st.node(slot).changed(); // the job's expected end moved
            }
        }
        return false;
    }

    private boolean ended(final Job j, final boolean ok, final String detail) {
        st.estimator.finished(j.spec, StreamTime.minus(st.nowMs, j.startedAtMs > 0 ? j.startedAtMs : j.placedAtMs));
        final Reason r = Reason.of(ok ? ReasonCode.COMPLETED : ReasonCode.FAILED,
                (ok ? "completed" : "failed") + (detail.isEmpty() ? "" : ": " + detail));
        letGo(j, DecisionKind.RELEASED, r, "", InstructionKind.RELEASE);
        finish(j, ok ? JobState.COMPLETED : JobState.FAILED);
        return true;
    }

    private static boolean placedOn(final Job j, final String nodeId) {
        for (final PlacementPart a : j.placement) {
            if (a.nodeId().equals(nodeId)) {
                return true;
            }
        }
        return false;
    }

    private boolean refuse(final Job j, final EngineInput.JobReport e, final String why) {
        final String message = e.kind() + " event refused: " + why;
        j.refusedEvents++;
        j.lastRefusal = message;
        out.note(new JobEventNote(e.jobId(), JobEventNote.Kind.REFUSED, message));
        return false;
    }

    /** Evicts a job holding resources: EVICTED decision and EVICT instructions, then requeue or end it. */
    void evict(final Job j, final Reason why, final String causedBy, final boolean commandNodes) {
        letGo(j, DecisionKind.EVICTED, why, causedBy, commandNodes ? InstructionKind.EVICT : null);
        j.evictions++;
        j.preemptedBy = causedBy;
        if (cfg.evictAndRequeueOnFailure() || why.code() == ReasonCode.PREEMPTED || why.code() == ReasonCode.CONSOLIDATED) {
            j.queuedSinceMs = st.nowMs;
            enqueue(j);
            queued(j);
        } else {
            finish(j, JobState.EVICTED);
        }
    }

    /**
     * Decides {@code kind} about the job's placement, tells its nodes {@code told} (nothing when null)
     * under that decision, and frees what the job held.
     */
    private void letGo(final Job j, final DecisionKind kind, final Reason why, final String causedBy,
                       final InstructionKind told) {
        final String id = out.decide(j.id(), kind, j.placement, 0, why, causedBy, j).decisionId();
        if (told != null) {
            out.instruct(j.placement, told, j.id(), id, j.placementId);
        }
        allocation.release(j);
    }

    private void enqueue(final Job j) {
        j.state = JobState.QUEUED;
        j.enqueuedInRound = st.rounds;
        st.queue.add(j); // in submission order, so a requeued job keeps its seniority
    }

    private void queued(final Job j) {
        final Reason r = pass.reasonFor(j, explainer);
        j.currentReason = r;
        out.decide(j.id(), DecisionKind.QUEUED, List.of(), 0, r, "", j);
    }

    private void finish(final Job j, final JobState end) {
        j.state = end;
        st.activeJobs.remove(j.id());
        if (cfg.finishedJobsRetained() > 0) {
            st.finishedJobs.put(j.id(), j);
            if (st.finishedJobs.size() > cfg.finishedJobsRetained()) {
                st.finishedJobs.remove(st.finishedJobs.keySet().iterator().next());
            }
        }
    }
}
