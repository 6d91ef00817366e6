package io.gpupool.scheduler.stream;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Where one pool's latest {@link PoolView} is posted for the query and gauge threads. Readers say they want a
 * view; the placer publishes one only then, and only between journal entries ({@link ViewPublisher}), so a
 * pool nobody looks at costs nothing. This board has its own lock: no reader ever waits on the placer's.
 */
public final class PoolViewBoard {
    /**
     * The longest a query waits for a view that includes what the placer had applied when it asked (a big
     * pool on a busy placer is published less often, see {@link ViewPublisher}: then it gets an older one).
     */
    static final long MAX_WAIT_MS = 2_000;

    private final LongSupplier placerOffset;
    private volatile PoolView latest;
    private final AtomicBoolean wanted = new AtomicBoolean();
    /** When ({@link System#nanoTime}) the placer may snapshot this pool again; its thread only ({@link ViewPublisher}). */
    long nextSnapshotNs = Long.MIN_VALUE;
    private volatile PoolFigures figures;
    private final AtomicBoolean figuresWanted = new AtomicBoolean();
    /** When the placer may work out this pool's figures again; its thread only ({@link ViewPublisher}). */
    long nextFiguresNs = Long.MIN_VALUE;

    PoolViewBoard(final LongSupplier placerOffset) {
        this.placerOffset = placerOffset;
    }

    /**
     * A view that includes every journal entry the placer had applied when this was called, waiting for the
     * next publication if need be (at most {@link #MAX_WAIT_MS}: a placer busy on a long entry, or a
     * rebalance, gets the latest view there is, which says its offset and age). Empty if none was ever published.
     */
    public Optional<PoolView> current() {
        final long applied = placerOffset.getAsLong();
        final PoolView now = latest;
        if (now != null && now.journalOffset() >= applied) {
            wanted.set(true); // keeps the next one coming while someone is looking
            return Optional.of(now);
        }
        return awaitOffset(applied, MAX_WAIT_MS);
    }

    /** The latest view, however old, without waiting (gauges: they ask again in a few seconds). */
    public Optional<PoolView> latest() {
        wanted.set(true);
        return Optional.ofNullable(latest);
    }

    private synchronized Optional<PoolView> awaitOffset(final long offset, final long maxWaitMs) {
        final long deadline = System.nanoTime() + maxWaitMs * 1_000_000;
        wanted.set(true);
        while (latest == null || latest.journalOffset() < offset) {
            final long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) {
                break;
            }
            try {
                wait(leftMs);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return Optional.ofNullable(latest);
    }

    /**
     * The last view published, without asking for a new one: for a reader that must not cost the placer an
     * engine snapshot (the publisher itself, a benchmark's progress line while it measures latency). Empty if
     * none was ever published.
     */
    public Optional<PoolView> lastPublished() {
        return Optional.ofNullable(latest);
    }

    /**
     * The latest gauge figures, however old, without waiting, and a request for new ones (they cost the placer a
     * scan, never a snapshot: {@link PoolFigures}). Empty until the placer first worked them out.
     */
    public Optional<PoolFigures> latestFigures() {
        figuresWanted.set(true);
        return Optional.ofNullable(figures);
    }

    /** The last figures published, without asking for new ones. */
    public Optional<PoolFigures> lastFigures() {
        return Optional.ofNullable(figures);
    }

    boolean takeFiguresWanted() {
        return figuresWanted.getAndSet(false);
    }

    void publishFigures(final PoolFigures next) {
        figures = next;
    }

    /** Whether a reader asked since the last publication; asking again sets it again. */
    boolean takeWanted() {
        return wanted.getAndSet(false);
    }


    synchronized void publish(final PoolView view) {
        latest = view;
        notifyAll();
    }
}
