package io.gpupool.scheduler.core;

import java.util.Objects;

/**
 * One GPU of a node as the inventory describes it.
 *
 * @param uuid        the GPU's uuid (may be synthetic when the source has none)
 * @param model       the GPU model, e.g. "H100" or "V100M16"
 * @param memoryMib   GPU memory, 0 when unknown (shares are then limited by milli-GPU only)
 * @param nvlinkGroup GPUs with the same non-negative group talk over NVLink; -1 when none
 * @param pcieSwitch  GPUs with the same non-negative id sit under one PCIe switch; -1 when unknown
 */
public record GpuSpec(String uuid, String model, int memoryMib, int nvlinkGroup, int pcieSwitch) {
    public GpuSpec {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(model, "model");
        if (model.isBlank()) {
            throw new IllegalArgumentException("GPU " + uuid + " has a blank model");
        }
        if (memoryMib < 0) {
            throw new IllegalArgumentException("GPU " + uuid + " has negative memory " + memoryMib);
        }
    }

    /** The group inside the node this GPU prefers to share a job with: NVLink first, else PCIe switch. */
    int affinityGroup() {
        return nvlinkGroup >= 0 ? nvlinkGroup : (pcieSwitch >= 0 ? 1000 + pcieSwitch : 0);
    }
}
