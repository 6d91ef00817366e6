package io.gpupool.scheduler.core;

import java.util.List;

/**
 * Who holds the pool's GPUs: per tenant, what it holds and how much of that sits idle, against its quota;
 * and the allocated GPUs that sit idle, by job and node, most idle first (at most the number asked for).
 * GPUs are counted by share: a quarter-GPU share is 0.25. Idle means allocated with utilisation under the
 * engine's busy threshold ({@link EngineConfig#busyUtilisationPct()}), as the pool's busy count has it.
 *
 * @param tenants    tenants holding GPUs or named in the engine's quotas, by name
 * @param idle       allocated-but-idle GPUs per job and node, most idle first, then by job and node
 * @param idleTotal  allocated-but-idle GPUs of the whole pool (also those past the list's limit)
 */
public record PoolUsage(List<TenantUsage> tenants, List<IdleAllocation> idle, double idleTotal) {
    public PoolUsage {
        tenants = List.copyOf(tenants);
        idle = List.copyOf(idle);
    }

    /**
     * @param guaranteedGpus its guaranteed quota (0 when it has none)
     * @param maxGpus        its cap, {@link Integer#MAX_VALUE} when it has none
     */
    public record TenantUsage(String tenant, double heldGpus, double idleGpus, int guaranteedGpus, int maxGpus) {
    }

    /** The GPUs one job holds on one node while they sit idle. */
    public record IdleAllocation(String tenant, String jobId, String nodeId, double idleGpus) {
    }
}
