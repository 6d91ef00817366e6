package io.gpupool.scheduler.core;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One node as queries see it.
 *
 * @param fabric the RDMA fabrics its adapters reach: "infiniband", "roce", "infiniband+roce", or "none"
 */
public record NodeView(String nodeId, String leaf, String spine, String model, List<GpuView> gpus,
                       long cpuMilliFree, long memoryMibFree, int freeGpus, boolean multiNodeEligible,
                       Map<String, String> badLinks, List<String> jobs, long lastTelemetryMs, String fabric) {
    public NodeView {
        gpus = List.copyOf(gpus);
        badLinks = Collections.unmodifiableMap(new TreeMap<>(badLinks));
        jobs = List.copyOf(jobs);
    }
}
