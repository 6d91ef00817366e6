package io.gpupool.simulator.pool;

import java.util.Map;

/**
 * How to configure the engine of one simulated pool.
 *
 * @param policy the policy name the engine knows (e.g. first-fit, best-fit, fgd, random, fifo)
 * @param seed for the engine's seeded randomness (the random policy); same seed, same run
 * @param placeNowOrReject FGD's protocol: a job that cannot be placed on arrival fails instead of queueing
 * @param tenantGpuQuota guaranteed GPUs per tenant (borrowable when idle); empty when tenants have no quota
 * @param engineOverrides engine settings ({@code key=value}, as {@code gpupool replay --set}) applied last
 */
public record PoolSettings(String poolId, String policy, long seed, boolean placeNowOrReject, Map<String, Integer> tenantGpuQuota,
                           Map<String, String> engineOverrides) {

    public PoolSettings {
        tenantGpuQuota = Map.copyOf(tenantGpuQuota);
        engineOverrides = Map.copyOf(engineOverrides);
    }
}
