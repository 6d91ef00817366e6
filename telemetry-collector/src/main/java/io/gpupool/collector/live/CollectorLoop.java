package io.gpupool.collector.live;

import io.gpupool.collector.metrics.CollectorMetrics;
import io.gpupool.collector.publish.InventoryChanges;
import io.gpupool.collector.publish.RecordSink;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls a node at a fixed interval and publishes what it read: inventory at start and on change,
 * samples every interval. Nothing a source does ends the loop; failures are logged and counted.
 */
public final class CollectorLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CollectorLoop.class);

    private final NodeCollector collector;
    private final RecordSink sink;
    private final CollectorMetrics metrics;
    private final Duration interval;
    private final Clock clock;
    private final InventoryChanges changes = new InventoryChanges();
    private long nextDueNanos = Long.MIN_VALUE;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "collector-poll");
        t.setDaemon(true);
        return t;
    });

    public CollectorLoop(final NodeCollector collector, final RecordSink sink, final CollectorMetrics metrics,
            final Duration interval, final Clock clock) {
        this.collector = collector;
        this.sink = sink;
        this.metrics = metrics;
        this.interval = interval;
        this.clock = clock;
    }

    public void start() {
        ticker.scheduleAtFixedRate(this::pollSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One poll and publish; public so a test or a --once run can drive it without the timer. */
    public Frame pollOnce() throws InterruptedException {
        final long start = System.nanoTime();
        final Frame frame = collector.poll(clock.instant());
        if (changes.changed(frame.inventory())) {
            sink.publishInventory(frame.inventory());
            metrics.hardware().inventory(frame.inventory());
        }
        if (frame.gpu() != null) {
            sink.publishGpu(frame.gpu());
            metrics.hardware().gpus(frame.gpu());
        }
        if (frame.link() != null) {
            sink.publishLink(frame.link());
            metrics.hardware().links(frame.link());
        }
        if (!frame.warnings().isEmpty()) {
            metrics.warnings("parser", frame.warnings().size());
        }
        for (final String error : frame.errors()) {
            metrics.pollError(error.substring(0, Math.max(0, error.indexOf(':'))));
            LOG.warn("poll of {} failed: {}", collector.nodeId(), error);
        }
        metrics.pollTimer().record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        return frame;
    }

    private void pollSafely() {
        // After a stalled poll (a hung nvidia-smi is killed after 10 s) the timer runs the missed
        // polls back to back; one fresh poll is enough, the rest are skipped.
        final long now = System.nanoTime();
        if (now < nextDueNanos) {
            return;
        }
        nextDueNanos = now + interval.toNanos() / 2;
        try {
            pollOnce();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("poll of {} failed", collector.nodeId(), e);
        }
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
