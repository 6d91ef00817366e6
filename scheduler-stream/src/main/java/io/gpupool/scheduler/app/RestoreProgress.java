package io.gpupool.scheduler.app;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far the scheduler's state stores are in restoring from their changelogs: what a restart waits for
 * after the previous process stopped uncleanly (under exactly-once its stores are wiped and rebuilt). Kafka
 * Streams calls it on its restore thread; readers take a consistent enough view for a progress line.
 */
public final class RestoreProgress implements StateRestoreListener {
    private static final Logger LOG = LoggerFactory.getLogger(RestoreProgress.class);

    /** One reading: records restored and to restore, store partitions still restoring, since when (nanoTime). */
    public record Reading(long restored, long total, int restoring, long startedNs) {
        /** Records restored per second since the first restore began (0 before). */
        public double recordsPerSecond(final long nowNs) {
            final double s = (nowNs - startedNs) / 1e9;
            return startedNs == 0 || s <= 0 ? 0 : restored / s;
        }
    }

    private final AtomicLong restored = new AtomicLong();
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong restoring = new AtomicLong();
    private final AtomicLong startedNs = new AtomicLong();

    public Reading reading() {
        return new Reading(restored.get(), total.get(), (int) restoring.get(), startedNs.get());
    }

    @Override
    public void onRestoreStart(final TopicPartition partition, final String store, final long startingOffset,
                               final long endingOffset) {
        startedNs.compareAndSet(0, System.nanoTime());
        restoring.incrementAndGet();
        total.addAndGet(Math.max(0, endingOffset - startingOffset));
        LOG.info("restoring store {} from {} offsets {} to {}", store, partition, startingOffset, endingOffset);
    }

    @Override
    public void onBatchRestored(final TopicPartition partition, final String store, final long batchEndOffset,
                                final long numRestored) {
        restored.addAndGet(numRestored);
    }

    @Override
    public void onRestoreEnd(final TopicPartition partition, final String store, final long totalRestored) {
        restoring.decrementAndGet();
        LOG.info("restored store {} from {}: {} records", store, partition, totalRestored);
    }
}
