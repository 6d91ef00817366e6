package io.gpupool.collector.gpu;

import java.util.List;

/**
 * All GPUs of one node as read at one instant, plus what the reading had to skip.
 *
 * @param label    where the readings came from (a capture section, a URL, "live")
 * @param gpus     readings in source order, one per uuid
 * @param warnings lines or fields that were skipped, each said in words
 */
public record GpuSnapshot(String label, String driverVersion, List<GpuReading> gpus, List<String> warnings) {
    public GpuSnapshot {
        gpus = List.copyOf(gpus);
        warnings = List.copyOf(warnings);
    }
}
