package io.gpupool.simulator.trace;

import java.util.Set;

/**
 * One pod of an Alibaba openb pod list. {@code gpuCount} whole GPUs of {@code gpuMilliPerGpu}
 * each: a pod with one GPU and fewer than 1000 milli shares that GPU with others; a pod with
 * more than one GPU takes them whole; a pod with none is CPU-only.
 *
 * @param allowedGpuModels the gpu_spec models the pod may run on; empty means any model
 */
public record OpenbPod(
        String name,
        long cpuMilli,
        long memoryMib,
        int gpuCount,
        int gpuMilliPerGpu,
        Set<String> allowedGpuModels,
        long creationTime) {

    public static final int WHOLE_GPU_MILLI = 1000;

    public OpenbPod {
        allowedGpuModels = Set.copyOf(allowedGpuModels);
    }

    /** GPU demand of the pod in milli-GPU (what the FGD protocol counts as arrived demand). */
    public long totalGpuMilli() {
        return (long) gpuCount * gpuMilliPerGpu;
    }

    public boolean isGpuShare() {
        return gpuCount == 1 && gpuMilliPerGpu < WHOLE_GPU_MILLI;
    }

    /** The same request under another name (inflated workloads repeat pods). */
    public OpenbPod renamed(final String newName) {
        return new OpenbPod(newName, cpuMilli, memoryMib, gpuCount, gpuMilliPerGpu, allowedGpuModels, creationTime);
    }
}
