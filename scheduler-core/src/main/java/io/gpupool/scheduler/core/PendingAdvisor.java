package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * Works out a waiting job's {@link PendingAdvice}. Runs only when someone explains the job, so it may try a
 * handful of changed requests against the placer and take running jobs off the pool (and put them back
 * exactly, as the reservation planner does) to see whose end frees the room. Changes nothing it does not
 * restore; reads no clock and walks no unordered collection, so the same state gives the same advice.
 */
final class PendingAdvisor {
    /** Jobs named per list (holders, jobs ahead); the counts say how many there are in all. */
    static final int SHOWN = 5;
    /** Other models tried as changes: a pool has a few. */
    private static final int MODELS_SUGGESTED = 3;
    /** Running jobs taken off when looking for the ones a job waits for: the reservation planner's bound. */
    private static final int MAX_ENDS = 4096;

    private final PoolEngine engine;
    private final PoolState st;
    private final EngineConfig cfg;
    private final PlacementSearch placer;
    private final QueuePass pass;

    PendingAdvisor(final PoolEngine engine, final PoolState st, final EngineConfig cfg, final PlacementSearch placer,
                   final QueuePass pass) {
        this.engine = engine;
        this.st = st;
        this.cfg = cfg;
        this.placer = placer;
        this.pass = pass;
    }

    /** The advice for a waiting job, whose reason is {@code why}. */
    PendingAdvice advise(final Job j, final Reason why) {
        final List<String> ahead = new ArrayList<>();
        int aheadCount = 0;
        int behind = 0;
        boolean past = false;
        for (final Job other : st.queue.policyOrdered(st, cfg)) {
            if (other == j) {
                past = true;
            } else if (other.state == JobState.QUEUED && !pass.overQuota(other)) {
                if (past) {
                    behind++;
                } else {
                    if (ahead.size() < SHOWN) {
                        ahead.add(other.id());
                    }
                    aheadCount++;
                }
            }
        }
        final JobSpec s = j.spec;
        final boolean quota = pass.overQuota(s);
        final boolean fitsNow = !quota && placer.place(s) != null;
        final List<PendingAdvice.Change> changes = changes(j, aheadCount + behind, why);
        final List<Job> holders = fitsNow ? List.of() : quota ? tenantHolders(s) : capacityHolders(s);
        final List<PendingAdvice.Holder> shown = new ArrayList<>();
        for (final Job h : holders.subList(0, Math.min(SHOWN, holders.size()))) {
            shown.add(holder(h));
        }
        final List<String> notes = new ArrayList<>(notes(s, why));
        final Reservation r = st.reservation;
        if (!changes.isEmpty() && r != null && r.jobId().equals(j.id()) && behind > 0) {
            // its changes were checked against the pool, not against the jobs that would move up once it is gone
            notes.add("it holds the head-of-queue reservation: asked for again with a change, it queues behind the "
                    + behind + " job" + (behind == 1 ? "" : "s") + " waiting after it, which may take the room first");
        }
        return new PendingAdvice(j.id(), fitsNow, changes, shown, holders.size(), ahead, aheadCount, notes);
    }

    // ------------------------------------------------------------------ changes to the request

    private List<PendingAdvice.Change> changes(final Job j, final int othersWaiting, final Reason why) {
        final JobSpec s = j.spec;
        final List<PendingAdvice.Change> out = new ArrayList<>();
        if (s.nodes() > 1 && s.topologyRequired() && s.topology() != GangScope.POOL) {
            final JobSpec t = copy(s, s.nodes(), s.gpusPerNode(), s.allowedModels(), false, s.network(), s.runtimeEstimateMs());
            if (runsNow(j, t, othersWaiting)) {
                final String scope = (s.topology() == GangScope.NODE ? GangScope.LEAF : s.topology()).name().toLowerCase(Locale.ROOT);
                out.add(new PendingAdvice.Change(PendingAdvice.ChangeKind.TOPOLOGY_PREFERRED, "topologyRequired", "true",
                        "false", "one " + scope + " preferred instead of required"));
            }
        }
        if (s.network() != Network.ANY) {
            final Network other = s.network() == Network.INFINIBAND ? Network.ROCE : Network.INFINIBAND;
            for (final Network n : List.of(other, Network.ANY)) {
                if (runsNow(j, copy(s, s.nodes(), s.gpusPerNode(), s.allowedModels(), s.topologyRequired(), n,
                        s.runtimeEstimateMs()), othersWaiting)) {
                    out.add(new PendingAdvice.Change(PendingAdvice.ChangeKind.NETWORK, "network", lower(s.network()),
                            lower(n), "network " + lower(n) + " instead of " + lower(s.network())));
                    break;
                }
            }
        }
        if (!s.allowedModels().isEmpty() && s.gpusPerNode() > 0) {
            final List<String> names = new ArrayList<>();
            for (int m = 0; m < st.models.size(); m++) {
                final String name = st.models.name(m);
                if (!PoolState.CPU_ONLY.equals(name) && !s.allowedModels().contains(name)) {
                    names.add(name);
                }
            }
            names.sort(null); // name order, not the order nodes arrived in
            int suggested = 0;
            for (final String name : names) {
                if (suggested < MODELS_SUGGESTED && runsNow(j, copy(s, s.nodes(), s.gpusPerNode(), List.of(name),
                        s.topologyRequired(), s.network(), s.runtimeEstimateMs()), othersWaiting)) {
                    final String from = String.join("|", s.allowedModels());
                    out.add(new PendingAdvice.Change(PendingAdvice.ChangeKind.MODEL, "allowedModels", from, name,
                            "GPU model " + name + " instead of " + from));
                    suggested++;
                }
            }
        }
        final Reservation r = st.reservation;
        if (why.code() == ReasonCode.RESERVED_FOR_HEAD_OF_QUEUE && r != null && !r.jobId().equals(j.id())
                && r.startAtMs() > st.nowMs && r.startAtMs() != StreamTime.NEVER) {
            final long most = r.startAtMs() - st.nowMs;
            final long now = st.estimator.estimate(s, cfg.defaultRuntimeMs());
            if (most < now && runsNow(j, copy(s, s.nodes(), s.gpusPerNode(), s.allowedModels(), s.topologyRequired(),
                    s.network(), most), othersWaiting)) {
                out.add(new PendingAdvice.Change(PendingAdvice.ChangeKind.SHORTER_ESTIMATE, "runtimeEstimateMs",
                        Long.toString(now), Long.toString(most), "a runtime estimate of at most " + most
                        + " ms instead of " + now + " ms (ends before " + r.jobId() + " is due to start)"));
            }
        }
        if (!s.isShare() && s.gpusPerNode() > 0) {
            if (s.nodes() > 1) {
                final int n = largest(s.nodes() - 1, k -> copy(s, k, s.gpusPerNode(), s.allowedModels(),
                        s.topologyRequired(), s.network(), s.runtimeEstimateMs()), j, othersWaiting);
                if (n > 0) {
                    out.add(new PendingAdvice.Change(PendingAdvice.ChangeKind.FEWER_NODES, "nodes",
                            Integer.toString(s.nodes()), Integer.toString(n), n + " node" + (n == 1 ? "" : "s")
                            + " of " + s.gpusPerNode() + " GPUs instead of " + s.nodes()));
                }
            } else {
                final int k = largest(s.gpusPerNode() - 1, g -> copy(s, 1, g, s.allowedModels(), s.topologyRequired(),
                        s.network(), s.runtimeEstimateMs()), j, othersWaiting);
                if (k > 0) {
                    out.add(new PendingAdvice.Change(PendingAdvice.ChangeKind.FEWER_GPUS, "gpusPerNode",
                            Integer.toString(s.gpusPerNode()), Integer.toString(k), k + " GPU" + (k == 1 ? "" : "s")
                            + " instead of " + s.gpusPerNode()));
                }
            }
        }
        return out;
    }

    /**
     * The largest size in 1..{@code most} whose request runs now, or 0. A search by halves: a smaller gang or
     * fewer GPUs fits wherever a larger one does, and the answer is one that was tried and ran.
     */
    private int largest(final int most, final IntFunction<JobSpec> sized, final Job j, final int othersWaiting) {
        int lo = 0; // runs (0: none known)
        int hi = most + 1; // does not run
        while (hi - lo > 1) {
            final int mid = lo + (hi - lo) / 2;
            if (runsNow(j, sized.apply(mid), othersWaiting)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Whether the changed request would be placed by the next queue pass: it fits now, is within its
     * tenant's cap, passes the standing head-of-queue reservation as backfill, and (strict order, no
     * backfill) no other job waits: asked for again, it would queue behind them and the pass stops at the first.
     */
    private boolean runsNow(final Job j, final JobSpec changed, final int othersWaiting) {
        if ((!cfg.backfill() && othersWaiting > 0) || pass.overQuota(changed)) {
            return false;
        }
        final Candidate c = placer.place(changed);
        if (c == null) {
            return false;
        }
        final Reservation r = st.reservation;
        return r == null || r.jobId().equals(j.id()) || pass.backfillFits(changed, c, r);
    }

    private static JobSpec copy(final JobSpec s, final int nodes, final int gpusPerNode, final List<String> models,
                                final boolean topologyRequired, final Network network, final long estimateMs) {
        return new JobSpec(s.jobId(), s.name(), s.tenant(), s.priorityClass(), s.priority(), nodes, gpusPerNode,
                s.gpuMilli(), s.gpuMemoryMib(), s.cpuMilliPerNode(), s.memoryMibPerNode(), models, s.topology(),
                topologyRequired, network, s.preemptible(), s.deadlineMs(), s.rejectIfLate(), estimateMs,
                s.placeNowOrReject());
    }

    // ------------------------------------------------------------------ what it waits for

    /** Running jobs in order of expected end (then submission), as the reservation planner takes them off. */
    private List<Job> runningByEnd() {
        final List<Job> running = new ArrayList<>();
        for (final Job r : st.activeJobs.values()) {
            if (r.state.holdsResources()) {
                running.add(r);
            }
        }
        running.sort((a, b) -> {
            final int byEnd = Long.compare(pass.expectedEnd(a), pass.expectedEnd(b));
            return byEnd != 0 ? byEnd : Long.compare(a.submitSeq, b.submitSeq);
        });
        return running;
    }

    /**
     * The running jobs whose ends free the room: jobs are taken off in order of expected end until the
     * request fits; those on the nodes it would then use are what it waits for. None when no ends free it
     * (unhealthy GPUs, a missing fabric, more than the pool).
     */
    private List<Job> capacityHolders(final JobSpec s) {
        final List<Job> running = runningByEnd();
        final long need = (long) s.nodes() * s.gpusPerNode();
        long freed = pass.freeHealthyOfModels(s);
        final List<Job> detached = new ArrayList<>();
        Candidate fit = null;
        try {
            for (int k = 0; k < Math.min(running.size(), MAX_ENDS); k++) {
                final Job r = running.get(k);
                engine.unaccount(r);
                detached.add(r);
                freed += (long) r.spec.nodes() * r.spec.gpusPerNode();
                final boolean sameEndNext = k + 1 < running.size()
                        && pass.expectedEnd(running.get(k + 1)) == pass.expectedEnd(r);
                if (sameEndNext || freed < need) {
                    continue;
                }
                fit = placer.place(s);
                if (fit != null) {
                    break;
                }
            }
        } finally {
            for (int k = detached.size() - 1; k >= 0; k--) {
                engine.reaccount(detached.get(k));
            }
        }
        if (fit == null) {
            return List.of();
        }
        final BitSet used = new BitSet();
        for (final int slot : fit.slots) {
            used.set(slot);
        }
        final List<Job> out = new ArrayList<>();
        for (final Job r : detached) {
            for (final int slot : r.slots) {
                if (used.get(slot)) {
                    out.add(r);
                    break;
                }
            }
        }
        return out;
    }

    /** Over its tenant's cap: the tenant's running jobs, ending first, whose ends bring it under. */
    private List<Job> tenantHolders(final JobSpec s) {
        final TenantConfig t = cfg.tenant(s.tenant());
        long held = st.fairShare.heldMilli(s.tenant());
        final List<Job> out = new ArrayList<>();
        for (final Job r : runningByEnd()) {
            if (held + s.totalGpuMilli() <= t.maxGpus() * 1000L) {
                break;
            }
            if (r.spec.tenant().equals(s.tenant())) {
                out.add(r);
                held -= r.spec.totalGpuMilli();
            }
        }
        return held + s.totalGpuMilli() <= t.maxGpus() * 1000L ? out : List.of();
    }

    private PendingAdvice.Holder holder(final Job h) {
        final List<String> nodes = new ArrayList<>();
        for (final PlacementPart p : h.placement) {
            nodes.add(p.nodeId());
        }
        return new PendingAdvice.Holder(h.id(), h.spec.tenant(), h.spec.totalGpuMilli(), nodes, pass.expectedEnd(h));
    }

    // ------------------------------------------------------------------ notes

    /** A fabric reported unavailable may only be full: say which. */
    private List<String> notes(final JobSpec s, final Reason why) {
        if (why.code() != ReasonCode.NETWORK_UNAVAILABLE || s.network() == Network.ANY) {
            return List.of();
        }
        final boolean[] allowed = new boolean[st.models.size()];
        for (final int m : placer.models(s)) {
            allowed[m] = true;
        }
        int withFabric = 0;
        int withFree = 0;
        for (final NodeState n : st.slots) {
            if (n != null && allowed[n.modelIndex] && s.network().satisfiedBy(n.infiniband, n.roce)) {
                withFabric++;
                if (n.freeWhole >= s.gpusPerNode()) {
                    withFree++;
                }
            }
        }
        final String net = lower(s.network());
        return List.of(withFabric == 0 ? "no node of the allowed models has " + net
                : net + " is not missing but full: " + withFabric + " node" + (withFabric == 1 ? " has" : "s have")
                + " it, " + withFree + " with " + s.gpusPerNode() + " GPUs free");
    }

    private static String lower(final Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
