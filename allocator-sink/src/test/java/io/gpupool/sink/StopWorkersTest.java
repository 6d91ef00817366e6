package io.gpupool.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The stop threads' queue is bounded: past it, the submitting (consumer) thread runs the task itself. */
class StopWorkersTest {

    @Test
    void aFullQueueMakesTheSubmitterRunTheTaskInsteadOfGrowing() throws Exception {
        final ThreadPoolExecutor pool = StopWorkers.create(1, 2);
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch busy = new CountDownLatch(1);
        final List<String> ranOn = new CopyOnWriteArrayList<>();
        try {
            pool.execute(() -> {
                busy.countDown();
                await(release);
            });
            assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 5; i++) {
                pool.execute(() -> ranOn.add(Thread.currentThread().getName()));
                assertThat(pool.getQueue().size()).as("queued").isLessThanOrEqualTo(2);
            }
            final String me = Thread.currentThread().getName();
            assertThat(ranOn).as("the three past the queue ran on the submitter").containsExactly(me, me, me);
            release.countDown();
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            assertThat(ranOn).hasSize(5);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void theDefaultQueueIsBoundedPerThread() {
        assertThat(StopWorkers.create(16).getQueue().remainingCapacity()).isEqualTo(16 * StopWorkers.QUEUED_PER_THREAD);
    }

    private static void await(final CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
