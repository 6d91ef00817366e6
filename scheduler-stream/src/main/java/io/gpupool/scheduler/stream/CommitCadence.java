package io.gpupool.scheduler.stream;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessingContext;

/**
 * When a task's transaction commits. An exactly-once commit is a transaction commit the stream thread waits
 * for (flush, offsets, commit), and a decision is visible only after it, so latency wants a commit soon after
 * each record and throughput wants few commits. A fixed {@code commit.interval.ms} picks one: at 10 ms the
 * 2-core bench machine gave p50 35-45 ms at low rates, and at 2,800 requests/s the threads spent so much of
 * their time committing that the backlog grew until the pool filled and decisions fell behind for good; at
 * 30 ms that rate was decided in full, with p50 near twice as long at every rate.
 *
 * <p>So {@code commit.interval.ms} is the longest a commit waits (100 ms in the local profile), and this asks
 * Streams for one sooner, down to {@link #CHECK_EVERY} after the last it asked for, while commits are cheap:
 * it waits at least {@link #INTERVAL_PER_COMMIT_TIME} times what the thread spent committing since then. A
 * commit of 2 ms is asked for every 10 ms; one of 20 ms (a busy broker) every 80 ms, so committing never takes
 * more than about a quarter of the thread, and the batches grow with the load instead of the commits. The
 * time is the thread's producer's own ({@link ProducerCommitTimes}); where those are not known (a client not
 * bound to them, a test driver), every check asks, as a fixed 10 ms interval would. A request covers every task of
 * the thread (one transaction), and each processor whose records wait for it keeps a cadence of its own.
 *
 * <p>While the placer is behind ({@link JournalBacklog#behind}: more unapplied journal entries than a commit
 * interval's worth at any rate it holds), a decision waits for the backlog, not for the next commit, and a commit
 * asked for only takes time from deciding. Then no cadence asks, and the thread commits every {@code
 * commit.interval.ms}: on the 2-core bench machine, at 6,000 requests/s offered, the thread had spent a fifth
 * of its time waiting for commits (scheduler-stream/README.md, Benchmark).
 *
 * <p>Wall-clock time decides only when transactions end, never what is decided.
 */
public final class CommitCadence {
    /** How often the cadence looks, and so the shortest time between the commits it asks for. */
    static final Duration CHECK_EVERY = Duration.ofMillis(10);
    /** Time between asked-for commits per unit of time spent committing. */
    static final int INTERVAL_PER_COMMIT_TIME = 4;

    /** {@link #askedAtMs} before the first ask. */
    private static final long NOT_YET = Long.MIN_VALUE;

    private final DoubleSupplier committingNanos;
    private final BooleanSupplier behind;
    private ProcessingContext context;
    private boolean processedSinceAsked;
    private long askedAtMs;
    private double committingNanosWhenAsked;

    /**
     * @param times  the stream threads' commit times, read for the thread the processor runs on
     * @param behind whether the placer is behind ({@link JournalBacklog#behind}), when nothing is asked for
     */
    public CommitCadence(final ProducerCommitTimes times, final BooleanSupplier behind) {
        this(() -> times.nanos(Thread.currentThread().getName(), System.currentTimeMillis()), behind);
    }

    /**
     * @param committingNanos the time the thread has spent committing, cumulative, in ns (NaN: not known)
     * @param behind          whether the placer is behind now
     */
    CommitCadence(final DoubleSupplier committingNanos, final BooleanSupplier behind) {
        this.committingNanos = committingNanos;
        this.behind = behind;
    }

    /** Starts the cadence for a task's processor; call from {@code init}. */
    public void init(final ProcessingContext ctx) {
        this.context = ctx;
        this.processedSinceAsked = false;
        this.askedAtMs = NOT_YET;
        this.committingNanosWhenAsked = committingNanos.getAsDouble();
        ctx.schedule(CHECK_EVERY, PunctuationType.WALL_CLOCK_TIME, this::check);
    }

    /** Notes that the processor has processed a record, which a commit is now due for. */
    public void processed() {
        processedSinceAsked = true;
    }

    private void check(final long nowMs) {
        if (!processedSinceAsked || behind.getAsBoolean()) {
            return;
        }
        final double committing = committingNanos.getAsDouble();
        final double committedMs = (committing - committingNanosWhenAsked) / 1e6;
        // NaN (times not known, now or when last asked) compares false: ask at every check
        if (askedAtMs != NOT_YET && committedMs * INTERVAL_PER_COMMIT_TIME > nowMs - askedAtMs) {
            return;
        }
        context.commit();
        processedSinceAsked = false;
        askedAtMs = nowMs;
        committingNanosWhenAsked = committing;
    }
}
