package io.gpupool.scheduler.core;

/**
 * A tenant's (queue's) share of the pool.
 *
 * @param guaranteedGpus GPUs it is guaranteed; its jobs within this quota go before borrowers
 * @param weight         its weight in fair share between tenants
 * @param maxGpus        hard cap including borrowed GPUs (Integer.MAX_VALUE: may borrow everything idle)
 */
public record TenantConfig(int guaranteedGpus, double weight, int maxGpus) {
    public static final TenantConfig DEFAULT = new TenantConfig(0, 1.0, Integer.MAX_VALUE);

    public TenantConfig {
        if (guaranteedGpus < 0 || maxGpus < 0 || !(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("tenant quota needs guaranteed >= 0, max >= 0, 0 < weight < inf; got "
                    + guaranteedGpus + ", " + maxGpus + ", " + DecimalText.of(weight));
        }
    }
}
