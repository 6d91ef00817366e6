package io.gpupool.sink;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that run the sink's stops (and the starts that wait for a stop on their GPUs): a fixed
 * number, created when needed and ended when idle, with a bounded queue. When the queue is full the
 * consumer's thread runs the task itself: a flood of commands then slows consumption (the poll waits)
 * instead of growing memory without bound.
 */
final class StopWorkers {
    /** Tasks queued per thread before the consumer's thread runs them itself. */
    static final int QUEUED_PER_THREAD = 256;

    private StopWorkers() {
    }

    static ThreadPoolExecutor create(final int threads) {
        return create(threads, threads * QUEUED_PER_THREAD);
    }

    static ThreadPoolExecutor create(final int threads, final int queued) {
        final AtomicInteger n = new AtomicInteger();
        final ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queued), r -> {
                    final Thread t = new Thread(r, "sink-stop-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.CallerRunsPolicy());
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
