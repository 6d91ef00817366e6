package io.gpupool.scheduler.audit.reality;

import java.time.Duration;
import java.time.Instant;

/** How findings write moments and spans: ISO-8601 instants, open ends in words. */
final class Moments {
    private Moments() {
    }

    static String at(final long ms) {
        return ms == Long.MIN_VALUE ? "the start of the history" : ms == Long.MAX_VALUE ? "the end of the history"
                : Instant.ofEpochMilli(ms).toString();
    }

    static String span(final Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
