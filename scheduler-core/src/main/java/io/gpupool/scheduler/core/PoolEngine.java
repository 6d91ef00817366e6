package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The placement engine of one pool: a single-threaded, deterministic function from inputs to
 * decisions. {@link #apply} is the one entry point; the same inputs in the same order always give
 * the same decisions (and the same {@link #snapshot()} bytes).
 */
public final class PoolEngine {
    private final EngineConfig cfg;
    final PoolState st;
    private final ModelStats stats = new ModelStats();
    private final PlacementSearch placer;
    private final Validator validator;
    private final Explainer explainer;
    private final Health health;
    private final QueuePass pass;
    /** Size of the last snapshot written: a capacity hint for the next one (not state). */
    int lastSnapshotSize;
    /** Outputs of the input being applied. */
    private final List<Decision> decisions = new ArrayList<>();
    private final List<NodeInstruction> commands = new ArrayList<>();
    /** What the engine made of the job event being applied, when it did not apply it. */
    private JobEventNote eventNote;
    private long inputTs;

    public PoolEngine(final EngineConfig config) {
        this.cfg = config;
        this.st = new PoolState(config);
        this.placer = new PlacementSearch(st, config, stats);
        this.validator = new Validator(st, stats, placer);
        this.explainer = new Explainer(st, placer, stats);
        this.health = new Health(config);
        this.pass = new QueuePass(this, st, config, placer);
    }

    public EngineConfig config() {
        return cfg;
    }

    /** Stream time the engine has reached (the largest input timestamp seen). */
    public long nowMs() {
        return st.nowMs;
    }

    /** Applies one input and returns what it caused, in order. */
    public EngineOutput apply(final EngineInput input) {
        decisions.clear();
        commands.clear();
        eventNote = null;
        inputTs = input.timestampMs();
        st.nowMs = Math.max(st.nowMs, inputTs);
        final boolean schedule;
        if (!(input instanceof EngineInput.SubmitJob || input instanceof EngineInput.JobReport
                || input instanceof EngineInput.CancelJob || input instanceof EngineInput.NodeHeartbeat
                || input instanceof EngineInput.GpuUtilisationFact || input instanceof EngineInput.NodeUplinkFact)) {
            // inventory, health, links or a tick: capacity may be lost, plans are replanned when next needed
            // (an uplink figure only changes which leaf a gang prefers: the plans' promises still hold)
            st.plans.clear();
        }
        if (input instanceof EngineInput.SubmitJob s) {
            schedule = submit(s.job());
        } else if (input instanceof EngineInput.JobReport e) {
            schedule = jobEvent(e);
        } else if (input instanceof EngineInput.CancelJob c) {
            schedule = cancel(c.jobId(), c.reason());
        } else if (input instanceof EngineInput.GpuHealthFact f) {
            schedule = gpuHealth(f);
        } else if (input instanceof EngineInput.GpuUtilisationFact f) {
            schedule = gpuUtilisation(f);
        } else if (input instanceof EngineInput.NodeHeartbeat h) {
            schedule = heartbeat(h.nodeId());
        } else if (input instanceof EngineInput.LinkFact f) {
            schedule = link(f);
        } else if (input instanceof EngineInput.LeafUplinkFact f) {
            schedule = leafUplink(f);
        } else if (input instanceof EngineInput.NodeUplinkFact f) {
            schedule = nodeUplink(f);
        } else if (input instanceof EngineInput.NodeUpsert u) {
            schedule = upsertNode(u.node());
        } else if (input instanceof EngineInput.NodeRemoval r) {
            schedule = removeNode(r.nodeId());
        } else if (input instanceof EngineInput.ClockTick) {
            schedule = tick();
        } else {
            throw new IllegalArgumentException("unknown engine input " + input);
        }
        if (schedule) {
            pass.run();
        }
        if (decisions.isEmpty() && commands.isEmpty() && eventNote == null) {
            return EngineOutput.EMPTY;
        }
        return new EngineOutput(decisions, commands, eventNote);
    }

    // ------------------------------------------------------------------ inventory

    private boolean upsertNode(final NodeSpec spec) {
        st.impairmentVersion++;
        final NodeState old = st.nodesById.get(spec.nodeId());
        final String model = spec.gpuModel() == null ? PoolState.CPU_ONLY : spec.gpuModel();
        if (old != null && old.gpuCount == spec.gpus().size() && st.models.name(old.modelIndex).equals(model)) {
            // same GPUs: keep allocations and health, take the new description (leaf, CPU, HCAs)
            final int leaf = st.leafIndex(spec.leaf(), spec.spine());
            final long cpuUsed = old.spec.cpuMilli() - old.cpuFree;
            final long memUsed = old.spec.memoryMib() - old.memFree;
            st.index.remove(old);
            old.describe(spec);
            final int oldLeaf = old.leafIndex;
            final boolean counted = old.uplinkCounted;
            st.uncountUplink(old);
            old.leafIndex = leaf;
            st.countUplink(old);
            if (oldLeaf != leaf && counted) {
                st.judgeLeaf(oldLeaf, cfg.leafCongestedPct(), true);
                st.judgeLeaf(leaf, cfg.leafCongestedPct(), false);
            }
            old.spineIndex = st.spineOfLeaf.get(leaf);
            old.cpuFree = spec.cpuMilli() - cpuUsed;
            old.changed();
            old.memFree = spec.memoryMib() - memUsed;
            st.index.add(old);
            stats.invalidate();
            return true;
        }
        if (old != null) {
            removeNode(spec.nodeId());
        }
        final int leaf = st.leafIndex(spec.leaf(), spec.spine());
        final NodeState n = new NodeState(st.slots.size(), spec, st.models.intern(model), leaf,
                st.spineOfLeaf.get(leaf), st.nowMs);
        st.slots.add(n);
        st.nodesById.put(spec.nodeId(), n);
        st.index.add(n);
        stats.invalidate();
        return true;
    }

    private boolean removeNode(final String nodeId) {
        st.impairmentVersion++;
        final NodeState n = st.nodesById.get(nodeId);
        if (n == null) {
            return false;
        }
        for (final Job j : new ArrayList<>(n.jobs)) {
            evict(j, Reason.of(ReasonCode.NODE_REMOVED, "node " + nodeId + " left the pool"), "", true);
        }
        st.index.remove(n);
        st.sharedRoom(n.modelIndex).clear(n.slot);
        if (n.uplinkCounted) {
            st.uncountUplink(n);
            st.judgeLeaf(n.leafIndex, cfg.leafCongestedPct(), true);
        }
        st.slots.set(n.slot, null);
        st.nodesById.remove(nodeId);
        stats.invalidate();
        return true;
    }

    // ------------------------------------------------------------------ health and telemetry

    private boolean gpuHealth(final EngineInput.GpuHealthFact f) {
        final NodeState n = st.nodesById.get(f.nodeId());
        if (n == null || f.gpu() < 0 || f.gpu() >= n.gpuCount) {
            return false;
        }
        n.xid[f.gpu()] = f.xid();
        n.temperatureC[f.gpu()] = f.temperatureC();
        // a health fact is telemetry too: it also clears staleness of the node's other GPUs
        final boolean grew = setHealth(n, f.gpu(), health.bitsOf(f));
        return heartbeat(f.nodeId()) | grew;
    }

    /** Changes one GPU's health bits; evicts the jobs on it when it fails. True when capacity grew. */
    private boolean setHealth(final NodeState n, final int gpu, final int bits) {
        final int before = n.healthBits[gpu];
        if (before == bits) {
            return false;
        }
        final int oldFree = n.freeWhole;
        final boolean oldLink = n.linkOk();
        st.impairmentVersion++;
        n.healthBits[gpu] = bits;
        n.changed();
        n.freeWhole = n.recountFreeWhole();
        st.index.update(n, oldFree, oldLink);
        refreshSharedRoom(n);
        if (before == 0 && cfg.evictAndRequeueOnFailure()) {
            final String why = "node " + n.id() + " GPU " + gpu + " unhealthy (" + n.describeUnhealthy(gpu) + ")";
            for (final Job j : new ArrayList<>(n.jobs)) {
                if (usesGpu(j, n, gpu)) {
                    evict(j, new Reason(ReasonCode.HARDWARE_FAILURE, why,
                            Map.of("node", n.id(), "gpu", Integer.toString(gpu))), "", true);
                }
            }
            return true; // eviction freed capacity elsewhere
        }
        return bits == 0;
    }

    private static boolean usesGpu(final Job j, final NodeState n, final int gpu) {
        for (final PlacementPart a : j.placement) {
            if (a.nodeId().equals(n.id()) && a.gpus().contains(gpu)) {
                return true;
            }
        }
        return false;
    }

    private boolean gpuUtilisation(final EngineInput.GpuUtilisationFact f) {
        final NodeState n = st.nodesById.get(f.nodeId());
        if (n == null || f.gpu() < 0 || f.gpu() >= n.gpuCount) {
            return false;
        }
        n.utilisationPct[f.gpu()] = Math.max(0, Math.min(100, f.utilisationPct()));
        return heartbeat(f.nodeId());
    }

    /** Fresh telemetry: clears staleness on the node's GPUs. */
    private boolean heartbeat(final String nodeId) {
        final NodeState n = st.nodesById.get(nodeId);
        if (n == null) {
            return false;
        }
        n.lastTelemetryMs = Math.max(n.lastTelemetryMs, inputTs);
        boolean grew = false;
        for (int g = 0; g < n.gpuCount; g++) {
            if ((n.healthBits[g] & GpuHealthState.STALE) != 0) {
                grew |= setHealth(n, g, n.healthBits[g] & ~GpuHealthState.STALE);
            }
        }
        if (!n.uplinkCounted && n.uplinkPct >= 0) { // back from stale: its figure counts again
            final boolean hadFigures = st.leafHasUplinks(n.leafIndex);
            st.countUplink(n);
            st.judgeLeaf(n.leafIndex, cfg.leafCongestedPct(), hadFigures);
        }
        return grew;
    }

    private boolean link(final EngineInput.LinkFact f) {
        final NodeState n = st.nodesById.get(f.nodeId());
        if (n == null) {
            return false;
        }
        final int oldFree = n.freeWhole;
        final boolean oldOk = n.linkOk();
        final String condition = !f.up() ? "down" : f.flapping() ? "flapping" : f.errorsRising() ? "errors rising" : null;
        st.impairmentVersion++;
        if (condition == null) {
            n.badPorts.remove(f.port());
        } else {
            n.badPorts.put(f.port(), condition);
        }
        n.linkDown = n.badPorts.containsValue("down");
        if (oldOk == n.linkOk()) {
            return false;
        }
        st.index.update(n, oldFree, oldOk);
        if (!n.linkOk() && n.linkDown && cfg.evictAndRequeueOnFailure()) {
            for (final Job j : new ArrayList<>(n.jobs)) {
                if (j.spec.nodes() > 1) {
                    evict(j, new Reason(ReasonCode.LINK_FAILURE, "node " + n.id() + " fabric link "
                            + f.port() + " down", Map.of("node", n.id(), "port", f.port())), "", true);
                }
            }
        }
        return true;
    }

    private boolean leafUplink(final EngineInput.LeafUplinkFact f) {
        final int leaf = st.leaves.find(f.leaf());
        if (leaf < 0) {
            return false;
        }
        st.leafCongested.set(leaf, f.congested());
        return false;
    }

    private boolean nodeUplink(final EngineInput.NodeUplinkFact f) {
        final NodeState n = st.nodesById.get(f.nodeId());
        if (n == null) {
            return false;
        }
        // telemetry: the node is alive (not stale) before its figure is counted
        final boolean grew = heartbeat(f.nodeId());
        final boolean hadFigures = st.leafHasUplinks(n.leafIndex);
        st.uncountUplink(n);
        n.uplinkPct = f.uplinkPct();
        st.countUplink(n);
        st.judgeLeaf(n.leafIndex, cfg.leafCongestedPct(), hadFigures);
        return grew;
    }

    private boolean tick() {
        boolean grew = false;
        if (cfg.staleTelemetryTimeoutMs() > 0) {
            for (final NodeState n : st.slots) {
                if (n != null && StreamTime.minus(st.nowMs, n.lastTelemetryMs) > cfg.staleTelemetryTimeoutMs()) {
                    for (int g = 0; g < n.gpuCount; g++) {
                        if ((n.healthBits[g] & GpuHealthState.STALE) == 0) {
                            grew |= setHealth(n, g, n.healthBits[g] | GpuHealthState.STALE);
                        }
                    }
                    if (n.uplinkCounted && n.telemetryStale()) { // a silent node's last figure is not the uplink now
                        st.uncountUplink(n);
                        st.judgeLeaf(n.leafIndex, cfg.leafCongestedPct(), true);
                    }
                }
            }
        }
        pass.checkDeadlines();
        return grew || !st.queue.isEmpty();
    }

    // ------------------------------------------------------------------ jobs

    private boolean submit(final JobSpec spec) {
        st.sizeMix.arrived(spec);
        if (st.activeJobs.containsKey(spec.jobId())) {
            // a replayed or duplicated submit must not create a second job; say so, keep the first
            decide(spec.jobId(), DecisionKind.REJECTED, List.of(), 0,
                    Reason.of(ReasonCode.DUPLICATE_JOB, "job " + spec.jobId() + " is already known"), "", null);
            return false;
        }
        st.finishedJobs.remove(spec.jobId());
        final Job job = new Job(spec, st.submitSeq++, st.nowMs);
        final Reason never = validator.neverFits(spec);
        if (never != null) {
            finish(job, JobState.REJECTED);
            decide(spec.jobId(), DecisionKind.REJECTED, List.of(), 0, never, "", job);
            return false;
        }
        final Reason late = pass.deadlineProblem(job);
        if (late != null && spec.rejectIfLate()) {
            finish(job, JobState.REJECTED);
            decide(spec.jobId(), DecisionKind.REJECTED, List.of(), 0, late, "", job);
            return false;
        }
        if (spec.placeNowOrReject()) {
            final Candidate c = placer.place(spec);
            st.activeJobs.put(spec.jobId(), job);
            if (c != null) {
                allocate(job, c);
            } else {
                st.activeJobs.remove(spec.jobId());
                finish(job, JobState.REJECTED);
                decide(spec.jobId(), DecisionKind.REJECTED, List.of(), 0, explainer.whyNot(spec), "", job);
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

    private boolean cancel(final String jobId, final String why) {
        final Job j = st.activeJobs.get(jobId);
        if (j == null) {
            return false;
        }
        final Reason r = Reason.of(ReasonCode.CANCELLED_BY_USER, why.isEmpty() ? "cancelled" : "cancelled: " + why);
        if (j.state == JobState.QUEUED) {
            st.queue.remove(j);
            finish(j, JobState.CANCELLED);
            decide(jobId, DecisionKind.CANCELLED, List.of(), 0, r, "", j);
            return false;
        }
        final List<PlacementPart> freed = j.placement;
        final String id = decide(jobId, DecisionKind.CANCELLED, freed, 0, r, "", j).decisionId();
        for (final PlacementPart a : freed) {
            commands.add(new NodeInstruction(a.nodeId(), InstructionKind.EVICT, jobId, id, j.placementId, a));
        }
        release(j);
        finish(j, JobState.CANCELLED);
        return true;
    }

    /**
     * A sink's report about one part of a placement. It is applied only to the placement it names, and
     * only from a node of it: a late event of an earlier placement (the answer to an EVICT, a completion
     * that raced a preemption) is noted as stale and changes nothing; one naming a placement or node never
     * commanded for the job is refused. Either way the job's current placement is untouched.
     */
    private boolean jobEvent(final EngineInput.JobReport e) {
        final Job j = st.job(e.jobId());
        if (j == null) {
            eventNote = new JobEventNote(e.jobId(), JobEventNote.Kind.UNKNOWN_JOB, e.kind() + " about job " + e.jobId()
                    + ", which pool " + cfg.poolId() + " does not know (never placed here, or finished and no longer"
                    + " retained)");
            return false;
        }
        if (e.placementId().isEmpty()) {
            return refuse(j, e, "the event names no placement");
        }
        if (!e.placementId().equals(j.placementId)) {
            if (j.earlierPlacements.contains(e.placementId())) {
                j.staleEvents++;
                eventNote = new JobEventNote(j.id(), JobEventNote.Kind.STALE, e.kind() + " of earlier placement "
                        + e.placementId() + " (now " + (j.placementId.isEmpty() ? "none" : j.placementId) + ", "
                        + j.state + ")");
                return false;
            }
            return refuse(j, e, "placement " + e.placementId() + " was never made for job " + j.id());
        }
        if (!e.nodeId().isEmpty() && !placedOn(j, e.nodeId())) {
            return refuse(j, e, "node " + e.nodeId() + " is not part of placement " + e.placementId());
        }
        switch (e.kind()) {
            case STARTED -> {
                if (j.state == JobState.RUNNING) {
                    return false; // another rank of the gang started
                }
                j.state = JobState.RUNNING;
                j.startedAtMs = e.timestampMs();
                for (final int slot : j.slots) {
                    if (st.node(slot) != null) {
                        st.node(slot).changed(); // the job's expected end moved
                    }
                }
                return false;
            }
            case COMPLETED, FAILED -> {
                final boolean ok = e.kind() == EngineInput.JobEventKind.COMPLETED;
                st.estimator.finished(j.spec, StreamTime.minus(st.nowMs, j.startedAtMs > 0 ? j.startedAtMs : j.placedAtMs));
                final List<PlacementPart> freed = j.placement;
                final String placement = j.placementId;
                final Reason r = Reason.of(ok ? ReasonCode.COMPLETED : ReasonCode.FAILED,
                        (ok ? "completed" : "failed") + (e.detail().isEmpty() ? "" : ": " + e.detail()));
                final String id = decide(j.id(), DecisionKind.RELEASED, freed, 0, r, "", j).decisionId();
                for (final PlacementPart a : freed) {
                    commands.add(new NodeInstruction(a.nodeId(), InstructionKind.RELEASE, j.id(), id, placement, a));
                }
                release(j);
                finish(j, ok ? JobState.COMPLETED : JobState.FAILED);
                return true;
            }
            case EVICTED -> {
                // the other nodes of a gang still run their parts: they are told to stop too
                evict(j, Reason.of(ReasonCode.EVICTED_BY_NODE, "evicted by the node side"
                        + (e.nodeId().isEmpty() ? "" : " on " + e.nodeId()) + (e.detail().isEmpty() ? "" : ": " + e.detail())), "", true);
                return true;
            }
            case RELEASED -> {
                return refuse(j, e, "RELEASED for placement " + e.placementId() + ", which was never released");
            }
            default -> throw new IllegalStateException("unhandled job event " + e.kind());
        }
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
        eventNote = new JobEventNote(e.jobId(), JobEventNote.Kind.REFUSED, message);
        return false;
    }

    // ------------------------------------------------------------------ allocation (used by the queue pass)

    void allocate(final Job job, final Candidate c) {
        allocate(job, c, "");
    }

    /** Places the job on the candidate; {@code note} is added to the PLACED reason (e.g. whom it preempted). */
    void allocate(final Job job, final Candidate c, final String note) {
        final JobSpec s = job.spec;
        final List<PlacementPart> placement = new ArrayList<>(c.slots.length);
        for (int i = 0; i < c.slots.length; i++) {
            final NodeState n = st.node(c.slots[i]);
            final int oldFree = n.freeWhole;
            final boolean oldLink = n.linkOk();
            final List<Integer> gpus = new ArrayList<>(c.gpus[i].length);
            for (final int g : c.gpus[i]) {
                if (n.healthBits[g] != 0 || n.usedMilli[g] + c.milli > 1000 || (c.milli == 1000 && n.usedMilli[g] != 0)) {
                    throw new IllegalStateException("placer chose a GPU that cannot take the job: node "
                            + n.id() + " GPU " + g + " for " + job.id());
                }
                n.usedMilli[g] += c.milli;
                n.shared[g] = c.milli < 1000;
                if (c.milli < 1000) {
                    n.usedGpuMemMib[g] += s.gpuMemoryMib();
                }
                gpus.add(g);
            }
            n.cpuFree -= s.cpuMilliPerNode();
            n.memFree -= s.memoryMibPerNode();
            n.changed();
            n.freeWhole = n.recountFreeWhole();
            st.index.update(n, oldFree, oldLink);
            if (c.milli < 1000) {
                refreshSharedRoom(n);
            }
            n.jobs.add(job);
            placement.add(new PlacementPart(n.id(), gpus, c.milli, c.milli < 1000 ? s.gpuMemoryMib() : 0,
                    s.cpuMilliPerNode(), s.memoryMibPerNode()));
        }
        st.queue.remove(job);
        if (st.plans.size() > 0) {
            final Set<String> on = new HashSet<>();
            placement.forEach(a -> on.add(a.nodeId()));
            st.plans.placedOn(on, st.backfillCheckedAgainst);
        }
        job.placement = List.copyOf(placement);
        job.slots = c.slots.clone();
        job.state = JobState.PLACED;
        job.placedAtMs = st.nowMs;
        job.startedAtMs = 0;
        job.estimatedRuntimeMs = st.estimator.estimate(s, cfg.defaultRuntimeMs());
        job.currentReason = null;
        st.fairShare.acquire(s.tenant(), s.totalGpuMilli(), st.nowMs);
        if (s.preemptible()) {
            st.preemptibleHolding[s.priorityClass().ordinal()]++;
        }
        Reason why = placedReason(job, c);
        if (!note.isEmpty()) {
            why = Reason.of(ReasonCode.PLACED, why.message() + "; " + note);
        }
        final String id = decide(job.id(), DecisionKind.PLACED, job.placement, c.score, why, "", job).decisionId();
        job.placementId = id;
        for (final PlacementPart a : job.placement) {
            commands.add(new NodeInstruction(a.nodeId(), InstructionKind.ALLOCATE, job.id(), id, id, a));
        }
    }

    private Reason placedReason(final Job job, final Candidate c) {
        final StringBuilder b = new StringBuilder(64).append("placed on ");
        final int shown = Math.min(c.slots.length, 4);
        for (int i = 0; i < shown; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(st.node(c.slots[i]).id());
        }
        if (c.slots.length > shown) {
            b.append(" and ").append(c.slots.length - shown).append(" more");
        }
        final NodeState first = st.node(c.slots[0]);
        b.append(" (").append(c.scope == GangScope.NODE ? "node" : c.scope.name().toLowerCase(Locale.ROOT))
                .append(' ').append(st.leaves.name(first.leafIndex)).append(") by ").append(cfg.policy().policyName())
                .append(", score ").append(c.score);
        if (job.spec.nodes() > 1 && st.leafCongested.get(first.leafIndex)) {
            b.append("; leaf uplinks congested");
        }
        return Reason.of(ReasonCode.PLACED, b.toString());
    }

    /** Frees what the job holds (no decision; the caller decides why). */
    void release(final Job job) {
        unaccount(job);
        for (final int slot : job.slots) {
            final NodeState n = st.node(slot);
            if (n != null) {
                n.jobs.remove(job);
            }
        }
        st.fairShare.release(job.spec.tenant(), job.spec.totalGpuMilli(), st.nowMs);
        if (job.spec.preemptible()) {
            st.preemptibleHolding[job.spec.priorityClass().ordinal()]--;
        }
        job.placement = List.of();
        job.slots = new int[0];
        if (!job.placementId.isEmpty()) {
            job.earlierPlacements.addLast(job.placementId);
            if (job.earlierPlacements.size() > Job.EARLIER_KEPT) {
                job.earlierPlacements.removeFirst();
            }
            job.placementId = "";
        }
    }

    /**
     * Takes the job's resources off its nodes but keeps its placement, so that {@link #reaccount}
     * can put them back exactly: how the queue pass asks "what if these jobs were gone".
     */
    void unaccount(final Job job) {
        for (int i = 0; i < job.slots.length; i++) {
            final NodeState n = st.node(job.slots[i]);
            if (n == null) {
                continue; // node already removed
            }
            final PlacementPart a = job.placement.get(i);
            final int oldFree = n.freeWhole;
            final boolean oldLink = n.linkOk();
            for (final int g : a.gpus()) {
                n.usedMilli[g] -= a.gpuMilli();
                if (a.gpuMilli() < 1000) {
                    n.usedGpuMemMib[g] -= a.gpuMemoryMib();
                }
                if (n.usedMilli[g] < 0) {
                    throw new IllegalStateException("released more than allocated on node " + n.id() + " GPU " + g);
                }
                if (n.usedMilli[g] == 0) {
                    n.shared[g] = false;
                }
            }
            n.cpuFree += a.cpuMilli();
            n.memFree += a.memoryMib();
            n.changed();
            n.freeWhole = n.recountFreeWhole();
            st.index.update(n, oldFree, oldLink);
            refreshSharedRoom(n);
        }
    }

    /** Puts back what {@link #unaccount} took off. */
    void reaccount(final Job job) {
        for (int i = 0; i < job.slots.length; i++) {
            final NodeState n = st.node(job.slots[i]);
            if (n == null) {
                continue;
            }
            final PlacementPart a = job.placement.get(i);
            final int oldFree = n.freeWhole;
            final boolean oldLink = n.linkOk();
            for (final int g : a.gpus()) {
                n.usedMilli[g] += a.gpuMilli();
                n.shared[g] = a.gpuMilli() < 1000;
                if (a.gpuMilli() < 1000) {
                    n.usedGpuMemMib[g] += a.gpuMemoryMib();
                }
            }
            n.cpuFree -= a.cpuMilli();
            n.memFree -= a.memoryMib();
            n.changed();
            n.freeWhole = n.recountFreeWhole();
            st.index.update(n, oldFree, oldLink);
            refreshSharedRoom(n);
        }
    }

    /** Evicts a job holding resources: EVICTED decision and EVICT commands, then requeue or end it. */
    void evict(final Job j, final Reason why, final String causedBy, final boolean commandNodes) {
        final List<PlacementPart> freed = j.placement;
        final String id = decide(j.id(), DecisionKind.EVICTED, freed, 0, why, causedBy, j).decisionId();
        if (commandNodes) {
            for (final PlacementPart a : freed) {
                commands.add(new NodeInstruction(a.nodeId(), InstructionKind.EVICT, j.id(), id, j.placementId, a));
            }
        }
        release(j);
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

    private void enqueue(final Job j) {
        j.state = JobState.QUEUED;
        j.enqueuedInRound = st.rounds;
        st.queue.add(j); // in submission order, so a requeued job keeps its seniority
    }

    private void queued(final Job j) {
        final Reason r = pass.reasonFor(j, explainer);
        j.currentReason = r;
        decide(j.id(), DecisionKind.QUEUED, List.of(), 0, r, "", j);
    }

    void finish(final Job j, final JobState end) {
        j.state = end;
        st.activeJobs.remove(j.id());
        if (cfg.finishedJobsRetained() > 0) {
            st.finishedJobs.put(j.id(), j);
            if (st.finishedJobs.size() > cfg.finishedJobsRetained()) {
                st.finishedJobs.remove(st.finishedJobs.keySet().iterator().next());
            }
        }
    }

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

    void refreshSharedRoom(final NodeState n) {
        boolean room = false;
        for (int g = 0; g < n.gpuCount && !room; g++) {
            room = n.shared[g] && n.usedMilli[g] > 0 && n.usedMilli[g] < 1000 && n.healthBits[g] == 0;
        }
        st.sharedRoom(n.modelIndex).set(n.slot, room);
    }

    Explainer explainer() {
        return explainer;
    }

    /** The engine's placer (read-only use: the tests' brute-force victim search asks it). */
    PlacementSearch placer() {
        return placer;
    }

    // ------------------------------------------------------------------ snapshot

    /** The engine's whole state as deterministic bytes (same state, same bytes). */
    public byte[] snapshot() {
        return SnapshotCodec.write(this);
    }

    /** An engine in exactly the state {@link #snapshot()} captured, under {@code config}. */
    public static PoolEngine restore(final byte[] snapshot, final EngineConfig config) {
        final PoolEngine e = new PoolEngine(config);
        SnapshotCodec.read(snapshot, e);
        return e;
    }

    /** Rebuilds derived structures (index, shared-room sets, stats) after a restore. */
    void rebuildDerived() {
        st.recountLeafUplinks();
        for (final Job j : st.activeJobs.values()) {
            if (j.state.holdsResources() && j.spec.preemptible()) {
                st.preemptibleHolding[j.spec.priorityClass().ordinal()]++;
            }
        }
        for (final NodeState n : st.slots) {
            if (n != null) {
                n.freeWhole = n.recountFreeWhole();
                st.index.add(n);
                refreshSharedRoom(n);
            }
        }
        stats.invalidate();
    }

    // ------------------------------------------------------------------ read-only views

    public PoolCapacity capacity() {
        final TreeMap<String, long[]> acc = new TreeMap<>();
        for (final NodeState n : st.slots) {
            if (n == null || n.gpuCount == 0) {
                continue;
            }
            final long[] a = acc.computeIfAbsent(st.models.name(n.modelIndex), k -> new long[7]);
            for (int g = 0; g < n.gpuCount; g++) {
                a[0]++;
                if (n.healthBits[g] != 0) {
                    a[2]++;
                } else {
                    a[1]++;
                }
                if (n.usedMilli[g] > 0) {
                    a[3]++;
                    a[4] += n.usedMilli[g];
                    if (n.utilisationPct[g] >= cfg.busyUtilisationPct()) {
                        a[6]++;
                    }
                } else if (n.healthBits[g] == 0) {
                    a[5]++;
                }
            }
        }
        final TreeMap<String, ModelCapacity> out = new TreeMap<>();
        acc.forEach((m, a) -> out.put(m, new ModelCapacity(m, a[0], a[1], a[2], a[3], a[4], a[5], a[6])));
        return new PoolCapacity(out, fragmentation());
    }

    /**
     * Share of the free healthy GPU capacity that the recent job mix cannot use (FGD's measure,
     * normalised); 0 when nothing is free or no job arrived yet.
     */
    public double fragmentation() {
        final JobSizeMix mix = st.sizeMix;
        long weight = 0;
        for (int i = 0; i < mix.typical.length; i++) {
            if (mix.typical[i].gpus() > 0) {
                weight += mix.weights[i];
            }
        }
        final int[] free = new int[NodeSpec.MAX_GPUS_PER_NODE];
        long freeMilli = 0;
        double frag = 0;
        for (final NodeState n : st.slots) {
            if (n == null || n.gpuCount == 0) {
                continue;
            }
            Fragmentation.freeOf(n, free);
            for (int g = 0; g < n.gpuCount; g++) {
                freeMilli += free[g];
            }
            if (weight > 0) {
                frag += Fragmentation.expected(mix, st.models, n.modelIndex, free, n.gpuCount, n.cpuFree);
            }
        }
        return freeMilli == 0 || weight == 0 ? 0 : frag / weight / freeMilli;
    }

    public QueueDepth queueDepth() {
        final Map<PriorityClass, Integer> byClass = new EnumMap<>(PriorityClass.class);
        final Map<String, Integer> byTenant = new TreeMap<>();
        for (final PriorityClass p : PriorityClass.values()) {
            byClass.put(p, 0);
        }
        for (final Job j : st.queue) {
            byClass.merge(j.spec.priorityClass(), 1, Integer::sum);
            byTenant.merge(j.spec.tenant(), 1, Integer::sum);
        }
        return new QueueDepth(st.queue.size(), byClass, byTenant);
    }

    public Optional<NodeView> node(final String nodeId) {
        final NodeState n = st.nodesById.get(nodeId);
        return n == null ? Optional.empty() : Optional.of(view(n));
    }

    /** All nodes in pool order. */
    public List<NodeView> nodes() {
        final List<NodeView> out = new ArrayList<>();
        for (final NodeState n : st.slots) {
            if (n != null) {
                out.add(view(n));
            }
        }
        return out;
    }

    private NodeView view(final NodeState n) {
        final List<GpuView> gpus = new ArrayList<>(n.gpuCount);
        for (int g = 0; g < n.gpuCount; g++) {
            final GpuSpec s = n.spec.gpus().get(g);
            gpus.add(new GpuView(g, s.uuid(), s.model(), n.usedMilli[g], n.shared[g], n.healthBits[g] == 0,
                    n.describeUnhealthy(g), n.utilisationPct[g]));
        }
        final List<String> jobs = new ArrayList<>();
        for (final Job j : n.jobs) {
            jobs.add(j.id());
        }
        return new NodeView(n.id(), st.leaves.name(n.leafIndex), st.spines.name(n.spineIndex),
                st.models.name(n.modelIndex), gpus, n.cpuFree, n.memFree, n.freeWhole, n.linkOk(), n.badPorts,
                jobs, n.lastTelemetryMs);
    }

    /** The head-of-queue reservation the last queue pass made, if any. */
    public Optional<Reservation> reservation() {
        return Optional.ofNullable(st.reservation);
    }

    /**
     * Whether the job is live here (queued, placed or running): only a live job can still cause
     * decisions and node commands. Cheap, unlike {@link #job}, which builds a view.
     */
    public boolean isLive(final String jobId) {
        return st.activeJobs.containsKey(jobId);
    }

    /** The placement the job holds resources under ("" when it holds none or is unknown). Cheap. */
    public String placementOf(final String jobId) {
        final Job j = st.activeJobs.get(jobId);
        return j == null ? "" : j.placementId;
    }

    public Optional<JobView> job(final String jobId) {
        final Job j = st.job(jobId);
        return j == null ? Optional.empty() : Optional.of(view(j));
    }

    /** When the longest-waiting queued job was submitted (stream time); empty when none waits. Cheap: no explanations. */
    public OptionalLong oldestQueuedSubmitMs() {
        long oldest = Long.MAX_VALUE;
        for (final Job j : st.queue) {
            oldest = Math.min(oldest, j.submitMs);
        }
        return oldest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(oldest);
    }

    /** Waiting jobs in the order the queue policy would consider them now. */
    public List<JobView> queuedJobs() {
        final List<JobView> out = new ArrayList<>();
        for (final Job j : st.queue.policyOrdered(st, cfg)) {
            out.add(view(j));
        }
        return out;
    }

    private JobView view(final Job j) {
        Reason r = j.currentReason;
        if (j.state == JobState.QUEUED) {
            r = pass.reasonFor(j, explainer); // explain against the pool as it is now
        }
        return new JobView(j.id(), j.spec.tenant(), j.spec.priorityClass(), j.spec.priority(), j.state, j.placement,
                j.submitMs, j.placedAtMs, j.evictions, j.preemptedBy, j.lastDecision, r,
                st.estimator.estimate(j.spec, cfg.defaultRuntimeMs()), j.placementId, j.staleEvents, j.refusedEvents,
                j.lastRefusal);
    }
}
