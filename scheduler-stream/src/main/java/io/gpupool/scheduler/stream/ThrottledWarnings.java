package io.gpupool.scheduler.stream;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * WARN lines about single input records (a dropped sample, a clamped time), at most {@link #PER_MINUTE}
 * a minute per kind: every such record is named in the log while they are rare, and a producer that
 * sends nothing but bad records cannot flood it; the next line says how many were left out. The
 * counters in {@link SchedulerMetrics} count them all.
 */
final class ThrottledWarnings {
    static final int PER_MINUTE = 20;

    private final Logger log;
    private final ConcurrentMap<String, long[]> windows = new ConcurrentHashMap<>();
    private final AtomicLong suppressedTotal = new AtomicLong();

    ThrottledWarnings(final Logger log) {
        this.log = log;
    }

    void warn(final String kind, final String format, final Object... args) {
        final long minute = SchedulerMetrics.wallNowMs() / 60_000;
        final long[] w = windows.computeIfAbsent(kind, k -> new long[3]); // {minute, logged, suppressed}
        final long suppressed;
        synchronized (w) {
            if (w[0] != minute) {
                suppressed = w[2];
                w[0] = minute;
                w[1] = 0;
                w[2] = 0;
            } else {
                suppressed = 0;
            }
            if (w[1] >= PER_MINUTE) {
                w[2]++;
                suppressedTotal.incrementAndGet();
                return;
            }
            w[1]++;
        }
        if (suppressed > 0) {
            log.warn("{} more '{}' warnings in the last minute were not logged", suppressed, kind);
        }
        log.warn(format, args);
    }
}
