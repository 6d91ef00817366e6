package io.gpupool.scheduler.core;

/**
 * The bound of one victim search: at most {@link VictimSearch#WORK_LIMIT} elementary steps (a node
 * fit check, a subset of coupling victims visited, a candidate node combined, a programme cell),
 * counted, not timed, so a search cut short is cut at the same place on every replay.
 */
final class SearchWork {
    private int steps;
    private boolean exhausted;

    void step() {
        spend(1);
    }

    void spend(final int n) {
        steps += n;
        if (steps > VictimSearch.WORK_LIMIT) {
            exhausted = true;
        }
    }

    /** The bound is reached: every part of the search stops and the best found so far stands. */
    boolean exhausted() {
        return exhausted;
    }
}
