package io.gpupool.simulator.trace;

/**
 * One node of an Alibaba openb node list.
 *
 * @param gpuModel empty for CPU-only nodes
 */
public record OpenbNode(String name, long cpuMilli, long memoryMib, int gpuCount, String gpuModel) {

    public long gpuMilliCapacity() {
        return (long) gpuCount * OpenbPod.WHOLE_GPU_MILLI;
    }
}
