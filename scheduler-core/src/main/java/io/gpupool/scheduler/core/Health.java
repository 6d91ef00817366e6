package io.gpupool.scheduler.core;

/** Turns a GPU health fact into out-of-service reasons, by the configured rules. */
final class Health {
    private final EngineConfig cfg;

    Health(final EngineConfig cfg) {
        this.cfg = cfg;
    }

    int bitsOf(final EngineInput.GpuHealthFact f) {
        int bits = 0;
        if (f.xid() != 0 && cfg.criticalXids().contains(f.xid())) {
            bits |= GpuHealthState.XID;
        }
        if (f.eccUncorrectable()) {
            bits |= GpuHealthState.ECC;
        }
        if (f.remapFailure()) {
            bits |= GpuHealthState.REMAP_FAILURE;
        }
        if (f.remapPending()) {
            bits |= GpuHealthState.REMAP_PENDING;
        }
        if (f.temperatureC() > cfg.temperatureThresholdC()) {
            bits |= GpuHealthState.OVER_TEMPERATURE;
        }
        return bits;
    }
}
