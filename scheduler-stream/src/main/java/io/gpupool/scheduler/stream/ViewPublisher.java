package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.PoolEngine;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The placer's side of the views: on a wall-clock punctuation (between journal entries, on the stream
 * thread that owns the engine), each pool a reader asked for gets a new {@link PoolView} if it applied
 * anything since the last one, or the last one reconfirmed if not. Wall-clock time decides only when a view
 * is taken, never a placement. What this costs the placer is one engine snapshot per published view (a
 * 32k-GPU pool's takes tens of milliseconds on an idle machine, several hundred on a loaded one), so a pool's
 * next view waits until the placer has worked {@link #WORK_PER_VIEW} times as long as the last snapshot took:
 * however many readers ask, views take at most a tenth of the placer's time.
 */
public final class ViewPublisher {
    /** How often a wanted view is brought up to date: a query waits at most this long for one. */
    public static final Duration EVERY = Duration.ofMillis(500);
    /** Placer time between two snapshots of a pool, in units of the last snapshot's time. */
    static final int WORK_PER_VIEW = 9;

    private final Timer publish;
    private final Timer figures;

    public ViewPublisher(final SchedulerMetrics metrics) {
        this.publish = Timer.builder("gpupool.view.publish")
                .description("Placer time spent taking the engine snapshot behind a pool view that queries read")
                .register(metrics.registry());
        this.figures = Timer.builder("gpupool.view.figures")
                .description("Placer time spent working out the figures the pool gauges read (a scan, no snapshot)")
                .register(metrics.registry());
    }

    /** Publishes the pool's view and its gauge figures if a reader wants them. Runs on the stream thread that drives {@code engine}. */
    public void publishIfWanted(final PoolEngines.Handle handle, final PoolEngine engine) {
        figuresIfWanted(handle, engine);
        viewIfWanted(handle, engine);
    }

    /** The gauges' figures: a scan, not a snapshot, held to a tenth of the placer's time like views. */
    private void figuresIfWanted(final PoolEngines.Handle handle, final PoolEngine engine) {
        final PoolViewBoard board = handle.views();
        if (System.nanoTime() < board.nextFiguresNs || !board.takeFiguresWanted()) {
            return;
        }
        final long now = SchedulerMetrics.wallNowMs();
        final long offset = handle.journalOffset();
        final PoolFigures last = board.lastFigures().orElse(null);
        if (last != null && last.journalOffset() == offset) {
            board.publishFigures(last.reconfirmed(now));
            return;
        }
        final long t0 = System.nanoTime();
        final PoolFigures next;
        synchronized (handle) {
            next = PoolFigures.of(handle.pool(), offset, now, engine);
        }
        final long t1 = System.nanoTime();
        figures.record(t1 - t0, TimeUnit.NANOSECONDS);
        board.nextFiguresNs = t1 + WORK_PER_VIEW * (t1 - t0);
        board.publishFigures(next);
    }

    private void viewIfWanted(final PoolEngines.Handle handle, final PoolEngine engine) {
        final PoolViewBoard board = handle.views();
        if (System.nanoTime() < board.nextSnapshotNs || !board.takeWanted()) {
            return;
        }
        final long now = SchedulerMetrics.wallNowMs();
        final long offset = handle.journalOffset();
        final PoolView last = board.lastPublished().orElse(null);
        if (last != null && last.journalOffset() == offset) {
            board.publish(last.reconfirmed(now));
            return;
        }
        final long t0 = System.nanoTime();
        final byte[] snapshot;
        synchronized (handle) { // only tests and benchmarks read the live engine (under this lock)
            snapshot = engine.snapshot();
        }
        final long t1 = System.nanoTime();
        publish.record(t1 - t0, TimeUnit.NANOSECONDS);
        board.nextSnapshotNs = t1 + WORK_PER_VIEW * (t1 - t0);
        board.publish(PoolView.of(handle.pool(), offset, engine.nowMs(), now, snapshot, engine.config()));
    }
}
