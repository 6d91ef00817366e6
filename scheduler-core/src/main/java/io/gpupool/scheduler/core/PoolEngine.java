package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The placement engine of one pool: a single-threaded, deterministic function from inputs to
 * decisions. {@link #apply} is the one entry point; the same inputs in the same order always give
 * the same decisions (and the same {@link #snapshot()} bytes).
 *
 * <p>A facade over the engine's rules, one class a concern: {@link PoolMembership} (nodes come and
 * go), {@link HealthRules} (GPU health, telemetry, links, leaf uplinks), {@link JobLifecycle} (submit,
 * cancel, the node side's reports, eviction), {@link Allocation} (what placements take from their
 * nodes), {@link QueuePass} (placing waiting jobs) and {@link PoolViews} (read-only views);
 * {@link Outcome} collects what one input caused.
 *
 * <p>Inputs reach their rule through {@link EngineInput#accept} and one {@link EngineInput.Visitor},
 * {@code Dispatch}: Java 17 has no pattern-matching switch without preview features, and a visitor
 * is the simplest dispatch whose completeness the compiler checks (a new kind of input does not
 * compile until the engine handles it). The same visitor says which inputs drop the standing
 * reservation plans, so that choice cannot drift from the dispatch.
 */
public final class PoolEngine {
    // Not final: reconfigure() wires them anew under another configuration, the state restored from its own snapshot.
    private EngineConfig cfg;
    PoolState st;
    private ModelStats stats;
    private PlacementSearch placer;
    private Explainer explainer;
    private QueuePass pass;
    private Outcome out;
    private Allocation allocation;
    private JobLifecycle jobs;
    private HealthRules health;
    private PoolMembership membership;
    private PoolViews views;
    private PendingAdvisor advisor;
    private final Dispatch dispatch = new Dispatch();
    /** Size of the last snapshot written: a capacity hint for the next one (not state). */
    int lastSnapshotSize;

    public PoolEngine(final EngineConfig config) {
        wire(config);
    }

    /** An empty state and the rules over it, under {@code config}. */
    private void wire(final EngineConfig config) {
        this.cfg = config;
        this.st = new PoolState(config);
        this.stats = new ModelStats();
        this.placer = new PlacementSearch(st, config, stats);
        this.explainer = new Explainer(st, placer, stats);
        this.pass = new QueuePass(this, st, config, placer);
        this.out = new Outcome(st, config);
        this.allocation = new Allocation(st, config, out);
        this.jobs = new JobLifecycle(st, config, out, allocation, new Validator(st, stats, placer), placer,
                explainer, pass);
        this.health = new HealthRules(st, config, allocation, jobs);
        this.membership = new PoolMembership(st, config, stats, jobs);
        this.views = new PoolViews(st, config, pass, explainer);
        this.advisor = new PendingAdvisor(this, st, config, placer, pass);
    }

    /**
     * From now on the engine runs under {@code next}: its state is carried over as a restore of its own
     * snapshot under {@code next} would (so a replay that restores at this point gets the same engine);
     * nothing is decided until the next input. Does nothing when {@code next} equals the current config.
     */
    public void reconfigure(final EngineConfig next) {
        if (next.equals(cfg)) {
            return;
        }
        final byte[] state = snapshot();
        wire(next);
        SnapshotCodec.read(state, this);
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
        out.begin(input.timestampMs());
        st.nowMs = Math.max(st.nowMs, input.timestampMs());
        if (input.accept(dispatch)) {
            pass.run();
        }
        return out.output();
    }

    /** Hands each kind of input to its rule; each answers whether a queue pass should follow. */
    private final class Dispatch implements EngineInput.Visitor<Boolean> {
        /**
         * Inventory, health, links or a tick: capacity may be lost, so the standing plans are dropped
         * (replanned when next needed). Jobs, heartbeats, utilisation and node uplink figures keep
         * them: an uplink figure only changes which leaf a gang prefers, the plans' promises still hold.
         */
        private void capacityMayBeLost() {
            st.plans.clear();
            pass.forgetReadiness();
        }

        @Override
        public Boolean visit(final EngineInput.NodeUpsert u) {
            capacityMayBeLost();
            return membership.upsert(u.node());
        }

        @Override
        public Boolean visit(final EngineInput.NodeRemoval r) {
            capacityMayBeLost();
            return membership.remove(r.nodeId());
        }

        @Override
        public Boolean visit(final EngineInput.GpuHealthFact f) {
            capacityMayBeLost();
            return health.gpuHealth(f);
        }

        @Override
        public Boolean visit(final EngineInput.GpuUtilisationFact f) {
            return health.gpuUtilisation(f);
        }

        @Override
        public Boolean visit(final EngineInput.NodeHeartbeat h) {
            return health.heartbeat(h.nodeId(), h.timestampMs());
        }

        @Override
        public Boolean visit(final EngineInput.LinkFact f) {
            capacityMayBeLost();
            return health.link(f);
        }

        @Override
        public Boolean visit(final EngineInput.NodeUplinkFact f) {
            return health.nodeUplink(f);
        }

        @Override
        public Boolean visit(final EngineInput.LeafUplinkFact f) {
            capacityMayBeLost();
            return health.leafUplink(f);
        }

        @Override
        public Boolean visit(final EngineInput.SubmitJob s) {
            return jobs.submit(s.job());
        }

        @Override
        public Boolean visit(final EngineInput.CancelJob c) {
            return jobs.cancel(c.jobId(), c.reason());
        }

        @Override
        public Boolean visit(final EngineInput.JobReport e) {
            return jobs.report(e);
        }

        @Override
        public Boolean visit(final EngineInput.ClockTick t) {
            capacityMayBeLost();
            final boolean grew = health.markStale();
            pass.checkDeadlines();
            return grew || !st.queue.isEmpty();
        }
    }

    // ------------------------------------------------------------------ for the queue pass and victim search

    void allocate(final Job job, final Candidate c) {
        allocation.allocate(job, c, "");
    }

    /** Places the job on the candidate; {@code note} is added to the PLACED reason (e.g. whom it preempted). */
    void allocate(final Job job, final Candidate c, final String note) {
        allocation.allocate(job, c, note);
    }

    /** See {@link Allocation#unaccount}: the what-if of the queue pass and the victim search. */
    void unaccount(final Job job) {
        allocation.unaccount(job);
    }

    /** Puts back what {@link #unaccount} took off. */
    void reaccount(final Job job) {
        allocation.reaccount(job);
    }

    /** Evicts a job holding resources: EVICTED decision and EVICT commands, then requeue or end it. */
    void evict(final Job j, final Reason why, final String causedBy, final boolean commandNodes) {
        jobs.evict(j, why, causedBy, commandNodes);
    }

    /** Ends a job that holds nothing as REJECTED. */
    void reject(final Job j, final Reason why) {
        jobs.reject(j, why);
    }

    Decision decide(final String jobId, final DecisionKind kind, final List<PlacementPart> placement,
                    final double score, final Reason reason, final String causedBy, final Job job) {
        return out.decide(jobId, kind, placement, score, reason, causedBy, job);
    }

    Explainer explainer() {
        return explainer;
    }

    /** The engine's queue pass (tests ask its planner). */
    QueuePass pass() {
        return pass;
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

    /**
     * An engine in exactly the state {@link #snapshot()} captured, under the configuration the snapshot
     * was written under (snapshot version 7 on); an older snapshot, which does not say, under {@code config}.
     */
    public static PoolEngine restore(final byte[] snapshot, final EngineConfig config) {
        final PoolEngine e = new PoolEngine(snapshotConfig(snapshot).orElse(config));
        SnapshotCodec.read(snapshot, e);
        return e;
    }

    /** The configuration a snapshot was written under; empty for snapshots older than version 7. */
    public static Optional<EngineConfig> snapshotConfig(final byte[] snapshot) {
        return SnapshotCodec.settings(snapshot).map(EngineConfig::fromRecordedSettings);
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
                allocation.refreshSharedRoom(n);
            }
        }
        stats.invalidate();
    }

    // ------------------------------------------------------------------ read-only views

    public PoolCapacity capacity() {
        return views.capacity();
    }

    /**
     * Share of the free healthy GPU capacity that the recent job mix cannot use (FGD's measure,
     * normalised); 0 when nothing is free or no job arrived yet.
     */
    public double fragmentation() {
        return views.fragmentation();
    }

    public QueueDepth queueDepth() {
        return views.queueDepth();
    }

    public Optional<NodeView> node(final String nodeId) {
        return views.node(nodeId);
    }

    /** All nodes in pool order. */
    public List<NodeView> nodes() {
        return views.nodes();
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
        return views.job(jobId);
    }

    /**
     * For a waiting job, the way out: the single changes to its request that would place it now, the running
     * jobs it waits for and the jobs ahead of it; empty when the job does not wait. Worked out on demand (not
     * cheap: it tries changed requests and takes running jobs off the pool and back); never part of a decision.
     */
    public Optional<PendingAdvice> advice(final String jobId) {
        final Job j = st.activeJobs.get(jobId);
        if (j == null || j.state != JobState.QUEUED) {
            return Optional.empty();
        }
        return Optional.of(advisor.advise(j, pass.reasonFor(j, explainer)));
    }

    /** When the longest-waiting queued job was submitted (stream time); empty when none waits. Cheap: no explanations. */
    public OptionalLong oldestQueuedSubmitMs() {
        return views.oldestQueuedSubmitMs();
    }

    /** Waiting jobs in the order the queue policy would consider them now. */
    public List<JobView> queuedJobs() {
        return views.queuedJobs();
    }

    /**
     * GPUs held per tenant against its quota, and the allocated GPUs sitting idle by job and node (the
     * {@code maxIdleRows} most idle; the total counts them all). One walk of the jobs holding resources.
     */
    public PoolUsage usage(final int maxIdleRows) {
        return UsageView.of(st, cfg, maxIdleRows);
    }

    /** Jobs that hold resources (placed or running), in submission order. */
    public List<JobView> runningJobs() {
        return views.runningJobs();
    }

    /** The finished jobs kept for queries ({@code finished-jobs-retained}), oldest first. */
    public List<JobView> finishedJobs() {
        return views.finishedJobs();
    }
}
