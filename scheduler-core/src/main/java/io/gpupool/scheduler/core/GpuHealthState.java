package io.gpupool.scheduler.core;

/** Why a GPU is out of service, as bits; 0 means healthy. */
final class GpuHealthState {
    static final int XID = 1;
    static final int ECC = 2;
    static final int REMAP_FAILURE = 4;
    static final int REMAP_PENDING = 8;
    static final int OVER_TEMPERATURE = 16;
    static final int STALE = 32;

    private GpuHealthState() {
    }

    static String describe(final int bits, final int xid, final int temperatureC) {
        final StringBuilder b = new StringBuilder();
        if ((bits & XID) != 0) {
            b.append("Xid ").append(xid);
        }
        if ((bits & ECC) != 0) {
            sep(b).append("uncorrectable ECC");
        }
        if ((bits & REMAP_FAILURE) != 0) {
            sep(b).append("row-remap failure");
        }
        if ((bits & REMAP_PENDING) != 0) {
            sep(b).append("row remap pending");
        }
        if ((bits & OVER_TEMPERATURE) != 0) {
            sep(b).append("temperature ").append(temperatureC).append(" C");
        }
        if ((bits & STALE) != 0) {
            sep(b).append("telemetry stale");
        }
        return b.toString();
    }

    private static StringBuilder sep(final StringBuilder b) {
        return b.length() == 0 ? b : b.append(", ");
    }
}
