package io.gpupool.collector.sim;

import io.gpupool.collector.publish.RecordSink;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ticks a simulated fleet at a fixed rate on one thread. A tick only builds records and hands
 * them to the sink (the publisher's bounded buffer); serialising and sending happen on the
 * publisher's thread, so a tick of 4,096 nodes stays well inside a second.
 *
 * <p>A tick that overruns its interval is counted as late, and the ticks it overran are skipped,
 * not run back to back: a real collector that stalls does not send a burst of stale samples
 * afterwards, and a burst would only overflow the publisher's buffer.
 */
public final class FleetRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FleetRunner.class);

    private final SimulatedFleet fleet;
    private final RecordSink sink;
    private final Duration interval;
    private final Clock clock;
    private final Thread thread;
    private volatile boolean running;
    private final AtomicLong ticks = new AtomicLong();
    private final AtomicLong lateTicks = new AtomicLong();
    private final AtomicLong skippedTicks = new AtomicLong();
    private final AtomicLong lastTickNanos = new AtomicLong();
    private final AtomicLong maxTickNanos = new AtomicLong();

    public FleetRunner(final SimulatedFleet fleet, final RecordSink sink, final Duration interval, final Clock clock) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("the fleet interval must be positive, got " + interval);
        }
        this.fleet = fleet;
        this.sink = sink;
        this.interval = interval;
        this.clock = clock;
        this.thread = new Thread(this::run, "fleet-ticker");
        this.thread.setDaemon(true);
    }

    public void start() {
        running = true;
        thread.start();
    }

    private void run() {
        final long step = interval.toNanos();
        long next = System.nanoTime();
        while (running) {
            final long start = System.nanoTime();
            try {
                fleet.tick(clock.instant(), interval.toMillis(), sink);
            } catch (RuntimeException e) {
                // One bad tick must not end the fleet.
                LOG.error("simulated fleet tick failed", e);
            }
            final long end = System.nanoTime();
            final long took = end - start;
            lastTickNanos.set(took);
            maxTickNanos.accumulateAndGet(took, Math::max);
            ticks.incrementAndGet();
            next += step;
            if (end > next) {
                lateTicks.incrementAndGet();
                final long missed = (end - next) / step + 1;
                skippedTicks.addAndGet(missed);
                next += missed * step;
            }
            while (running && System.nanoTime() < next) {
                LockSupport.parkNanos(next - System.nanoTime());
            }
        }
    }

    public long ticks() {
        return ticks.get();
    }

    /** Ticks that took longer than the interval. */
    public long lateTicks() {
        return lateTicks.get();
    }

    /** Ticks not run because a late tick overran them. */
    public long skippedTicks() {
        return skippedTicks.get();
    }

    public Duration lastTick() {
        return Duration.ofNanos(lastTickNanos.get());
    }

    public Duration maxTick() {
        return Duration.ofNanos(maxTickNanos.get());
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
