package io.gpupool.bench.pipeline;

import java.util.Arrays;

/** Request-to-decision latencies of a measured window, in ms; percentiles by sorting (exact). */
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
        return percentile(p, 0);
    }

    /**
     * The percentile over the recorded latencies and {@code undecided} requests that never got a decision,
     * counted as slower than any: -1 when the percentile falls among those (or nothing was measured).
     */
    long percentile(final double p, final long undecided) {
        final long all = size + undecided;
        if (all == 0) {
            return -1;
        }
        final long rank = Math.max(1, (long) Math.ceil(p / 100.0 * all));
        if (rank > size) {
            return -1;
        }
        final long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        return sorted[(int) rank - 1];
    }
}
