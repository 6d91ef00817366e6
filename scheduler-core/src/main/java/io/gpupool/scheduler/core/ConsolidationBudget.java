package io.gpupool.scheduler.core;

import java.util.ArrayDeque;

/**
 * How much consolidation (evict and requeue to free room) may still move: at most
 * {@code consolidation-max-evictions} victims per move, at most {@code consolidation-window-max-evictions}
 * per {@code consolidation-window-ms} in the pool, and no job that consolidation moved (or placed by
 * moving others) within {@code consolidation-cooldown-ms}. A job is moved at most once per cooldown and
 * the pool moves at most its budget per window, however the queue behaves.
 */
final class ConsolidationBudget {
    private final PoolState st;
    private final EngineConfig cfg;

    ConsolidationBudget(final PoolState st, final EngineConfig cfg) {
        this.st = st;
        this.cfg = cfg;
    }

    /** Victims one consolidation may still move: the per-move bound and what the pool's window has left. */
    int limit() {
        int lim = cfg.consolidationMaxEvictions();
        if (cfg.consolidationWindowMaxEvictions() > 0) {
            lim = Math.min(lim, cfg.consolidationWindowMaxEvictions() - movesInWindow());
        }
        return lim;
    }

    private int movesInWindow() {
        final ArrayDeque<Long> moves = st.consolidationMoves;
        while (!moves.isEmpty() && moves.peekFirst() <= StreamTime.minus(st.nowMs, cfg.consolidationWindowMs())) {
            moves.pollFirst();
        }
        return moves.size();
    }

    /**
     * Consolidation moved the job, or moved others for it, less than the cooldown ago. "Never moved"
     * ({@code Long.MIN_VALUE}) is a mark, not a time, so it is tested as such; the time since a move
     * saturates, so a cooldown of {@code Long.MAX_VALUE} holds a moved job for ever.
     */
    boolean coolingDown(final Job v) {
        return cfg.consolidationCooldownMs() > 0 && v.consolidatedAtMs != Long.MIN_VALUE
                && StreamTime.minus(st.nowMs, v.consolidatedAtMs) < cfg.consolidationCooldownMs();
    }

    /** The victim was moved now: it cools down, and the move counts against the window. */
    void moved(final Job victim) {
        victim.consolidatedAtMs = st.nowMs;
        if (cfg.consolidationWindowMaxEvictions() > 0) {
            st.consolidationMoves.addLast(st.nowMs);
        }
    }

    /** Others were moved for the job now: what was moved for it is not undone at once by moving it. */
    void movedFor(final Job j) {
        j.consolidatedAtMs = st.nowMs;
    }
}
