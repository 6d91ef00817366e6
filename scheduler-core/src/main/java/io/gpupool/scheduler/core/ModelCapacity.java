package io.gpupool.scheduler.core;

/**
 * Capacity of one GPU model. Unhealthy GPUs are counted and shown, never silently subtracted.
 *
 * @param total          all GPUs in the inventory
 * @param allocatable    healthy GPUs (total - unhealthy)
 * @param unhealthy      GPUs out of service (Xid, ECC, remap, temperature, stale telemetry)
 * @param allocated      GPUs with any allocation (whole or shares)
 * @param allocatedMilli milli-GPU allocated (shares counted by their size)
 * @param free           healthy GPUs with nothing on them
 * @param busy           allocated GPUs whose telemetry says they are really working
 */
public record ModelCapacity(String model, long total, long allocatable, long unhealthy, long allocated,
                            long allocatedMilli, long free, long busy) {
}
