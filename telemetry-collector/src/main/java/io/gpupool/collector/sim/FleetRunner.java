package io.gpupool.collector.sim;

import io.gpupool.collector.publish.RecordSink;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ticks a simulated fleet at a fixed rate on one thread. A tick only builds records and hands
 * them to the sink (the publisher's bounded buffer); serialising and sending happen on the
 * publisher's thread, so a tick of 4,096 nodes stays well inside a second. A tick that overruns
 * is counted, and the next one starts right after it instead of piling up.
 */
public final class FleetRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FleetRunner.class);

    private final SimulatedFleet fleet;
    private final RecordSink sink;
    private final Duration interval;
    private final Clock clock;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "fleet-ticker");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong ticks = new AtomicLong();
    private final AtomicLong lateTicks = new AtomicLong();
    private final AtomicLong lastTickNanos = new AtomicLong();
    private final AtomicLong maxTickNanos = new AtomicLong();

    public FleetRunner(final SimulatedFleet fleet, final RecordSink sink, final Duration interval, final Clock clock) {
        this.fleet = fleet;
        this.sink = sink;
        this.interval = interval;
        this.clock = clock;
    }

    public void start() {
        ticker.scheduleAtFixedRate(this::tickSafely, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void tickSafely() {
        final long start = System.nanoTime();
        try {
            fleet.tick(clock.instant(), interval.toMillis(), sink);
        } catch (RuntimeException e) {
            // One bad tick must not end the fleet: scheduleAtFixedRate stops on an exception.
            LOG.error("simulated fleet tick failed", e);
        }
        final long took = System.nanoTime() - start;
        lastTickNanos.set(took);
        maxTickNanos.accumulateAndGet(took, Math::max);
        ticks.incrementAndGet();
        if (took > interval.toNanos()) {
            lateTicks.incrementAndGet();
        }
    }

    public long ticks() {
        return ticks.get();
    }

    public long lateTicks() {
        return lateTicks.get();
    }

    public Duration lastTick() {
        return Duration.ofNanos(lastTickNanos.get());
    }

    public Duration maxTick() {
        return Duration.ofNanos(maxTickNanos.get());
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        try {
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
