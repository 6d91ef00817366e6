package io.gpupool.scheduler.core;

import java.util.Locale;

/** Coarse priority; a higher class is always served (and may preempt) before a lower one. */
public enum PriorityClass {
    BEST_EFFORT,
    BATCH,
    PRODUCTION;

    /** Parses a class name case-insensitively, accepting '-' for '_'. */
    public static PriorityClass parse(final String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown priority class '" + text
                    + "'; use one of production, batch, best-effort", e);
        }
    }
}
