package io.gpupool.scheduler.stream;

import io.gpupool.avro.UtilisationBand;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The sequencer's rules for turning raw telemetry into facts: plausible value ranges (a sample
 * outside them is dropped and counted), when a GPU is unhealthy, the utilisation bands, when a
 * fabric port is flapping or degraded, and when a node's uplink figure moved enough to journal.
 * Leaf congestion is the placer's (it sees every node of a leaf). Times are stream time.
 */
public record TelemetryRules(SortedSet<Integer> criticalXids, double overheatC, long heartbeatIntervalMs,
                      int flapDownEvents, long flapWindowMs, long errorsPerSampleDegraded, long degradedQuietMs) {

    static final double MIN_TEMPERATURE_C = -40;
    static final double MAX_TEMPERATURE_C = 150;
    /** Hysteresis, in percentage points, before a GPU leaves its utilisation band. */
    static final double BAND_HYSTERESIS_PCT = 3;

    public TelemetryRules {
        criticalXids = new TreeSet<>(criticalXids);
    }

    public static TelemetryRules defaults() {
        // Same critical Xids as the engine's default; 90 C like the engine's temperature threshold.
        return new TelemetryRules(new TreeSet<>(Set.of(48, 63, 64, 74, 79, 92, 94, 95, 119, 120)), 90,
                30_000, 3, 300_000, 10, 300_000);
    }

    /**
     * Percentage points a node's uplink figure must move before it is journaled again: the placer's
     * leaf means are then within this of the nodes' figures, at a few journal entries per node and
     * minute under fluctuating load instead of one per sample.
     */
    static final double UPLINK_STEP_PCT = 5;

    /** Whether an uplink figure ({@code -1} = unknown) moved enough from the one journaled to journal it. */
    static boolean uplinkMoved(final double journaled, final double now) {
        if ((journaled < 0) != (now < 0)) {
            return true;
        }
        return now >= 0 && Math.abs(now - journaled) >= UPLINK_STEP_PCT;
    }

    /** The journal's band for a band number of {@link #band} (as the node's state keeps it; -1 = none yet). */
    static UtilisationBand bandOf(final int band) {
        return switch (band) {
            case 1 -> UtilisationBand.IDLE;
            case 2 -> UtilisationBand.LOW;
            case 3 -> UtilisationBand.MEDIUM;
            case 4 -> UtilisationBand.HIGH;
            default -> UtilisationBand.UNKNOWN;
        };
    }

    /** Band for a utilisation reading, staying in {@code current} while inside its range +- hysteresis. */
    static int band(final double pct, final int current) {
        final double[] lower = {Double.NaN, 0, 5, 30, 70};
        final double[] upper = {Double.NaN, 5, 30, 70, 101};
        if (current >= 1 && current <= 4
                && pct >= lower[current] - BAND_HYSTERESIS_PCT && pct < upper[current] + BAND_HYSTERESIS_PCT) {
            return current;
        }
        for (int b = 1; b <= 4; b++) {
            if (pct < upper[b]) {
                return b;
            }
        }
        return 4;
    }
}
