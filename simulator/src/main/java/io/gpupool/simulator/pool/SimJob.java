package io.gpupool.simulator.pool;

import java.util.OptionalLong;
import java.util.Set;

/**
 * A job request as the simulator submits it: {@code nodeCount} x {@code gpusPerNode} whole GPUs,
 * or one GPU shared at {@code gpuMilli} (&lt; 1000), or none (CPU-only).
 *
 * @param name a label known at submission (with the tenant, the key of the engine's learned runtime estimates)
 * @param tenant the queue the job is charged to (a Philly virtual cluster, or one tenant for FGD)
 * @param priority numeric priority inside the job's class, higher first (0 unless a baseline orders by it)
 * @param runtimeEstimateSeconds what the job's submitter declared, if anything; the simulator
 *        never fills this from a trace's true duration unless a policy is explicitly an oracle
 */
public record SimJob(
        String id,
        String name,
        String tenant,
        long cpuMilli,
        long memoryMib,
        int nodeCount,
        int gpusPerNode,
        int gpuMilli,
        Set<String> allowedGpuModels,
        int priority,
        OptionalLong runtimeEstimateSeconds) {

    public SimJob {
        allowedGpuModels = Set.copyOf(allowedGpuModels);
    }

    public long totalGpuMilli() {
        return (long) nodeCount * gpusPerNode * gpuMilli;
    }
}
