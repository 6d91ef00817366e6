package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.NodeView;
import io.gpupool.scheduler.core.PendingAdvice;
import io.gpupool.scheduler.core.PoolCapacity;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.core.PoolUsage;
import io.gpupool.scheduler.core.QueueDepth;
import io.gpupool.scheduler.core.Reservation;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * What queries and gauges read of a pool: a frozen copy of its engine at one journal position, published by
 * the placer ({@link ViewPublisher}) and never touched by it again. The placer only takes the snapshot bytes;
 * the first reader restores them into a private engine, so the copy costs the placer one snapshot, and a slow
 * read (explaining a long queue) holds nothing the placer needs. The private engine is single-threaded like
 * any engine, so readers of one copy take turns on its own lock; a newer view has a new copy.
 */
public final class PoolView {
    /** Rows of allocated-but-idle GPUs a view keeps (what the gauges and their dashboard table show). */
    public static final int IDLE_ROWS = 20;

    /** The engine copy, shared by the views that only reconfirm it (the pool did not change). */
    private static final class Frozen {
        private byte[] snapshot;
        private final EngineConfig config;
        private PoolEngine engine;
        private PoolCapacity capacity;
        private QueueDepth queueDepth;
        private List<JobView> queued;
        private PoolUsage usage;

        Frozen(final byte[] snapshot, final EngineConfig config) {
            this.snapshot = snapshot;
            this.config = config;
        }

        synchronized <T> T read(final Function<PoolEngine, T> read) {
            if (engine == null) {
                engine = PoolEngine.restore(snapshot, config);
                snapshot = null; // the engine holds the state now
            }
            return read.apply(engine);
        }
    }

    private final String pool;
    private final long journalOffset;
    private final long streamTimeMs;
    private final long takenAtMs;
    private final Frozen frozen;

    private PoolView(final String pool, final long journalOffset, final long streamTimeMs, final long takenAtMs,
                     final Frozen frozen) {
        this.pool = pool;
        this.journalOffset = journalOffset;
        this.streamTimeMs = streamTimeMs;
        this.takenAtMs = takenAtMs;
        this.frozen = frozen;
    }

    /** A view of the pool as {@code snapshot} captured it, after the journal entry at {@code journalOffset}. */
    static PoolView of(final String pool, final long journalOffset, final long streamTimeMs, final long takenAtMs,
                       final byte[] snapshot, final EngineConfig config) {
        return new PoolView(pool, journalOffset, streamTimeMs, takenAtMs, new Frozen(snapshot, config));
    }

    /** The same state, found still current at {@code nowMs} (the pool applied nothing since). */
    PoolView reconfirmed(final long nowMs) {
        return new PoolView(pool, journalOffset, streamTimeMs, nowMs, frozen);
    }

    public String pool() {
        return pool;
    }

    /** The journal offset of the last entry this view includes (-1: none yet). */
    public long journalOffset() {
        return journalOffset;
    }

    /** The pool's stream time at that entry. */
    public long streamTimeMs() {
        return streamTimeMs;
    }

    /** When (wall clock) the placer last found this state current. */
    public long takenAtMs() {
        return takenAtMs;
    }

    /** How long ago (wall clock) the placer last found this state current. */
    public long ageMs() {
        return Math.max(0, SchedulerMetrics.wallNowMs() - takenAtMs);
    }

    public PoolCapacity capacity() {
        return frozen.read(e -> {
            if (frozen.capacity == null) {
                frozen.capacity = e.capacity(); // a scan of every node: once per view, whoever asks
            }
            return frozen.capacity;
        });
    }

    public QueueDepth queueDepth() {
        return frozen.read(e -> {
            if (frozen.queueDepth == null) {
                frozen.queueDepth = e.queueDepth();
            }
            return frozen.queueDepth;
        });
    }

    /**
     * GPUs held per tenant against its quota, and the {@link #IDLE_ROWS} jobs and nodes holding the most
     * allocated-but-idle GPUs: once per view, whoever asks.
     */
    public PoolUsage usage() {
        return frozen.read(e -> {
            if (frozen.usage == null) {
                frozen.usage = e.usage(IDLE_ROWS);
            }
            return frozen.usage;
        });
    }

    /** Waiting jobs in policy order, each explained against the pool as this view holds it. */
    public List<JobView> queuedJobs() {
        return frozen.read(e -> {
            if (frozen.queued == null) {
                frozen.queued = List.copyOf(e.queuedJobs());
            }
            return frozen.queued;
        });
    }

    /** Jobs holding resources (placed or running), in submission order. */
    public List<JobView> runningJobs() {
        return read(PoolEngine::runningJobs);
    }

    /** Finished jobs the engine still keeps, oldest first. */
    public List<JobView> finishedJobs() {
        return read(PoolEngine::finishedJobs);
    }

    /** Every node, in pool order. */
    public List<NodeView> nodes() {
        return read(PoolEngine::nodes);
    }

    /** The head-of-queue reservation: the job it is for and when it is to start (stream time). */
    public Optional<Reservation> reservation() {
        return read(PoolEngine::reservation);
    }

    /** The settings the pool runs with (tenant quotas, what counts as busy). */
    public EngineConfig config() {
        return read(PoolEngine::config);
    }

    public int nodeCount() {
        return read(e -> e.nodes().size());
    }

    public Optional<NodeView> node(final String nodeId) {
        return read(e -> e.node(nodeId));
    }

    public Optional<JobView> job(final String jobId) {
        return read(e -> e.job(jobId));
    }

    /** For a waiting job, what would place it now and what it waits for (worked out on this view's copy). */
    public Optional<PendingAdvice> advice(final String jobId) {
        return read(e -> e.advice(jobId));
    }

    public OptionalLong oldestQueuedSubmitMs() {
        return read(PoolEngine::oldestQueuedSubmitMs);
    }

    /** Stream time the engine had reached (what waiting times are measured against). */
    public long nowMs() {
        return read(PoolEngine::nowMs);
    }

    /** Runs a read-only {@code read} on this view's own engine copy (tests use it as a hook). */
    <T> T read(final Function<PoolEngine, T> read) {
        return frozen.read(read);
    }
}
