package io.gpupool.bench.pipeline;

import java.util.Arrays;

/** Request-to-decision latencies of the measured window, in ms; percentiles by sorting (exact). */
final class LatencyRecorder {
    private long[] values = new long[1 << 16];
    private int size;

    void record(final long ms) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = ms;
    }

    int count() {
        return size;
    }

    long percentile(final double p) {
        if (size == 0) {
            return -1;
        }
        final long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        return sorted[Math.min(size - 1, (int) Math.ceil(p / 100.0 * size) - 1)];
    }
}
