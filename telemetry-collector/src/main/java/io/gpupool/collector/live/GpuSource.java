package io.gpupool.collector.live;

import io.gpupool.collector.gpu.GpuSnapshot;
import java.io.IOException;

/** Where a node's GPU readings come from each interval: nvidia-smi, a dcgm-exporter, a file. */
public interface GpuSource {
    /** nvidia-smi, dcgm, ... as published in the records' {@code source} field. */
    String name();

    GpuSnapshot read() throws IOException, InterruptedException;
}
