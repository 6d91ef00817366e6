package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.PoolCapacity;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.core.PoolUsage;
import io.gpupool.scheduler.core.QueueDepth;
import java.util.OptionalLong;

/**
 * What the pool gauges read of a pool, worked out on the placer's thread at one journal position: capacity by
 * model, queue depth, who holds what, the oldest wait. A {@link PoolView} would give the same, but a view is an
 * engine snapshot (hundreds of milliseconds of placer time for 32k GPUs with a deep queue), and a Prometheus
 * scrape asks every few seconds: these figures cost a scan of the nodes and the running jobs instead, a few
 * milliseconds, so a scraped scheduler does not stall its decisions for its own gauges.
 *
 * @param oldestQueuedSubmitMs stream time the longest-waiting job was submitted at; -1 when none waits
 */
public record PoolFigures(String pool, long journalOffset, long streamTimeMs, long takenAtMs, PoolCapacity capacity,
                          QueueDepth queueDepth, PoolUsage usage, long oldestQueuedSubmitMs) {

    /** The figures of {@code engine} now; on the thread that drives it (or under its handle's lock). */
    public static PoolFigures of(final String pool, final long journalOffset, final long takenAtMs, final PoolEngine engine) {
        final OptionalLong oldest = engine.oldestQueuedSubmitMs();
        return new PoolFigures(pool, journalOffset, engine.nowMs(), takenAtMs, engine.capacity(), engine.queueDepth(),
                engine.usage(PoolView.IDLE_ROWS), oldest.isPresent() ? oldest.getAsLong() : -1);
    }

    /** The same figures, found still current at {@code nowMs} (the pool applied nothing since). */
    PoolFigures reconfirmed(final long nowMs) {
        return new PoolFigures(pool, journalOffset, streamTimeMs, nowMs, capacity, queueDepth, usage, oldestQueuedSubmitMs);
    }

    /** Seconds the longest-waiting job has waited, in stream time; 0 when none waits. */
    public double oldestWaitSeconds() {
        return oldestQueuedSubmitMs < 0 ? 0 : Math.max(0, streamTimeMs - oldestQueuedSubmitMs) / 1000.0;
    }
}
