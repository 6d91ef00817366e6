package io.gpupool.collector.gpu;

import java.util.Locale;

/** Multi-Instance GPU mode as a source reports it; absence of a value is a null {@code MigMode}, not a constant. */
public enum MigMode {
    DISABLED,
    ENABLED;

    /** Reads nvidia-smi's "Enabled"/"Disabled"; anything else is unknown (null). */
    public static MigMode parse(final String text) {
        if (text == null) {
            return null;
        }
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "enabled":
                return ENABLED;
            case "disabled":
                return DISABLED;
            default:
                return null;
        }
    }
}
