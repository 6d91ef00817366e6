package io.gpupool.scheduler.stream;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What to do when a stream thread dies of an uncaught exception: replace it, so that one bad
 * moment does not stop the scheduler, but at most {@code maxReplacements} times within
 * {@code window}. A thread that keeps failing is failing on something that a new thread meets
 * again (a record, a store), and replacing it for ever is a loop that looks alive; beyond the
 * bound the client is shut down, with the reason kept for /health. The clock is wall time, read
 * here only to bound the loop, never to decide a placement.
 */
public final class StreamThreadPolicy implements StreamsUncaughtExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(StreamThreadPolicy.class);

    /** Three replacements in ten minutes: room for a rare failure, not for a loop. */
    public static final int DEFAULT_MAX_REPLACEMENTS = 3;
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(10);

    private final int maxReplacements;
    private final long windowMs;
    private final LongSupplier clockMs;
    private final Counter replaced;
    private final Counter shutDowns;
    private final Deque<Long> recent = new ArrayDeque<>();
    private String lastFailure;
    private String shutDownReason;

    public StreamThreadPolicy(final int maxReplacements, final Duration window, final LongSupplier clockMs,
                              final MeterRegistry meters) {
        if (maxReplacements < 0 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("a thread policy needs replacements >= 0 and a positive window, not "
                    + maxReplacements + " in " + window);
        }
        this.maxReplacements = maxReplacements;
        this.windowMs = window.toMillis();
        this.clockMs = clockMs;
        this.replaced = Counter.builder("gpupool.stream.threads.replaced")
                .description("Stream threads replaced after an uncaught exception").register(meters);
        this.shutDowns = Counter.builder("gpupool.stream.client.shutdowns")
                .description("Times the Streams client was shut down because its threads kept failing").register(meters);
    }

    public static StreamThreadPolicy defaults(final MeterRegistry meters) {
        return new StreamThreadPolicy(DEFAULT_MAX_REPLACEMENTS, DEFAULT_WINDOW, System::currentTimeMillis, meters);
    }

    @Override
    public synchronized StreamThreadExceptionResponse handle(final Throwable exception) {
        final long now = clockMs.getAsLong();
        forget(now);
        lastFailure = exception.getClass().getName() + ": " + exception.getMessage();
        if (recent.size() < maxReplacements) {
            recent.addLast(now);
            replaced.increment();
            LOG.error("stream thread failed; replacing it ({} of at most {} replacements in {} s)", recent.size(),
                    maxReplacements, windowMs / 1000, exception);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        shutDownReason = "stream threads failed " + (recent.size() + 1) + " times within " + windowMs / 1000
                + " s; the client was shut down. Last failure: " + lastFailure;
        shutDowns.increment();
        LOG.error("{}", shutDownReason, exception);
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    /**
     * Why the scheduler is not healthy, if its threads are why: the client was shut down, or a thread
     * was replaced and failed again within the window (one replacement is a recovery, two a pattern).
     */
    public synchronized Optional<String> trouble() {
        if (shutDownReason != null) {
            return Optional.of(shutDownReason);
        }
        forget(clockMs.getAsLong());
        if (recent.size() >= 2) {
            return Optional.of("stream threads replaced " + recent.size() + " times within " + windowMs / 1000
                    + " s; last failure: " + lastFailure);
        }
        return Optional.empty();
    }

    private void forget(final long now) {
        while (!recent.isEmpty() && recent.peekFirst() <= now - windowMs) {
            recent.removeFirst();
        }
    }
}
