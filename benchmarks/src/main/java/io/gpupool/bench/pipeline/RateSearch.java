package io.gpupool.bench.pipeline;

import java.util.function.IntPredicate;

/**
 * The search of {@code --find-max}: the highest offered rate that holds (its measured window kept p99 within
 * the target). From a first probe it grows by half while rates hold, then bisects between the highest rate
 * that held and the lowest that did not, until they are within 5% (or the steps run out).
 */
final class RateSearch {
    /** Rates closer than this are not told apart: the machines' noise is larger. */
    static final int RESOLUTION = 50;

    private RateSearch() {
    }

    /** The highest rate that held, 0 if none did; {@code holds} measures one step (a fresh window) per call. */
    static int highestHolding(final int firstProbe, final int steps, final IntPredicate holds) {
        int held = 0;
        int failed = Integer.MAX_VALUE;
        int probe = round(Math.max(RESOLUTION, firstProbe));
        for (int step = 0; step < steps; step++) {
            if (holds.test(probe)) {
                held = probe;
            } else {
                failed = probe;
            }
            final int next = failed == Integer.MAX_VALUE ? round(held + held / 2) : round(held + (failed - held) / 2);
            if (failed - held <= Math.max(RESOLUTION, held / 20) || next <= held || next >= failed) {
                break;
            }
            probe = next;
        }
        return held;
    }

    private static int round(final int rate) {
        return Math.max(RESOLUTION, Math.round(rate / (float) RESOLUTION) * RESOLUTION);
    }
}
