package io.gpupool.sink;

import io.gpupool.sink.apply.PermanentApplyException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.IntConsumer;

/**
 * Retries an apply step with exponential backoff (initial, doubling, capped). A
 * {@link PermanentApplyException} is not retried: the command cannot work as it is.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
        }
    }

    public static RetryPolicy defaults() {
        return new RetryPolicy(4, Duration.ofMillis(200), Duration.ofSeconds(5));
    }

    /**
     * The longest {@link #run} can take when one attempt takes at most {@code perAttempt}: every
     * attempt, and the backoffs between them.
     */
    public Duration worstCase(final Duration perAttempt) {
        Duration total = perAttempt.multipliedBy(maxAttempts);
        long backoff = initialBackoff.toMillis();
        for (int attempt = 1; attempt < maxAttempts; attempt++) {
            total = total.plusMillis(backoff);
            backoff = Math.min(backoff * 2, maxBackoff.toMillis());
        }
        return total;
    }

    /** Runs {@code step} until it succeeds or attempts run out; {@code onRetry} gets the failed attempt number. */
    public <T> T run(final Callable<T> step, final IntConsumer onRetry) throws Exception {
        long backoff = initialBackoff.toMillis();
        for (int attempt = 1; ; attempt++) {
            try {
                return step.call();
            } catch (final PermanentApplyException | InterruptedException e) {
                throw e;
            } catch (final Exception e) {
                if (attempt >= maxAttempts) {
                    throw e;
                }
                onRetry.accept(attempt);
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, maxBackoff.toMillis());
            }
        }
    }
}
