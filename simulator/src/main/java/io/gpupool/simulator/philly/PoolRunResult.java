package io.gpupool.simulator.philly;

import java.util.List;

/**
 * One simulated pool over its jobs.
 *
 * @param allocationChanges (second, allocated GPUs after the change) in time order
 */
public record PoolRunResult(String poolId, int totalGpus, List<JobResult> jobs, List<long[]> allocationChanges) {

    public PoolRunResult {
        jobs = List.copyOf(jobs);
        allocationChanges = List.copyOf(allocationChanges);
    }
}
