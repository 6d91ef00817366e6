package io.gpupool.collector.nvidiasmi;

import java.util.Locale;

/**
 * nvidia-smi's many ways of saying "no value". Each must become null, never 0, or an idle-looking
 * GPU could really be a GPU that fell off the bus.
 */
public final class NoValue {
    private NoValue() {
    }

    public static boolean is(final String cell) {
        if (cell == null) {
            return true;
        }
        final String v = cell.trim();
        if (v.isEmpty()) {
            return true;
        }
        // Every bracketed cell is a status message: [N/A], [Not Supported], [Unknown Error],
        // [GPU requires reset], [Requested functionality has been deprecated], [Insufficient Permissions]...
        if (v.startsWith("[") && v.endsWith("]")) {
            return true;
        }
        final String lower = v.toLowerCase(Locale.ROOT);
        return lower.equals("n/a")
                || lower.equals("not supported")
                || lower.equals("unknown error")
                || lower.equals("gpu requires reset")
                || lower.equals("no data")
                || lower.contains("deprecated");
    }
}
