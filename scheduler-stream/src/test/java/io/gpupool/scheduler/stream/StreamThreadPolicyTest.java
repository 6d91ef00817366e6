package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
import static org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A failed stream thread is replaced, a thread that keeps failing is not: no restart loop that looks alive. */
class StreamThreadPolicyTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final StreamThreadPolicy policy = new StreamThreadPolicy(3, Duration.ofMinutes(10), now::get, meters);

    private double count(final String name) {
        return meters.get(name).counter().count();
    }

    @Test
    void aRareFailureIsReplacedAndLeavesTheSchedulerHealthy() {
        assertThat(policy.handle(new IllegalStateException("once"))).isEqualTo(REPLACE_THREAD);
        assertThat(policy.trouble()).isEmpty();
        now.addAndGet(Duration.ofMinutes(11).toMillis());
        assertThat(policy.handle(new IllegalStateException("again, much later"))).isEqualTo(REPLACE_THREAD);
        assertThat(policy.trouble()).as("the first failure is out of the window").isEmpty();
        assertThat(count("gpupool.stream.threads.replaced")).isEqualTo(2);
    }

    @Test
    void aThreadThatKeepsFailingIsReportedThenTheClientIsShutDown() {
        assertThat(policy.handle(new OutOfMemoryError("Java heap space"))).isEqualTo(REPLACE_THREAD);
        now.addAndGet(1_000);
        assertThat(policy.handle(new OutOfMemoryError("Java heap space"))).isEqualTo(REPLACE_THREAD);
        assertThat(policy.trouble()).hasValueSatisfying(r -> assertThat(r)
                .contains("replaced 2 times within 600 s").contains("java.lang.OutOfMemoryError: Java heap space"));
        now.addAndGet(1_000);
        assertThat(policy.handle(new OutOfMemoryError("Java heap space"))).isEqualTo(REPLACE_THREAD);
        now.addAndGet(1_000);
        assertThat(policy.handle(new OutOfMemoryError("Java heap space"))).isEqualTo(SHUTDOWN_CLIENT);
        assertThat(count("gpupool.stream.threads.replaced")).isEqualTo(3);
        assertThat(count("gpupool.stream.client.shutdowns")).isEqualTo(1);
        // a shut-down client stays unhealthy: nothing replaces it
        now.addAndGet(Duration.ofHours(1).toMillis());
        assertThat(policy.trouble()).hasValueSatisfying(r -> assertThat(r)
                .contains("failed 4 times within 600 s; the client was shut down"));
    }

    @Test
    void noReplacementsAllowedMeansTheFirstFailureShutsTheClientDown() {
        final StreamThreadPolicy strict = new StreamThreadPolicy(0, Duration.ofMinutes(1), now::get,
                new SimpleMeterRegistry());
        assertThat(strict.handle(new IllegalStateException("x"))).isEqualTo(SHUTDOWN_CLIENT);
        assertThat(strict.trouble()).isPresent();
    }
}
