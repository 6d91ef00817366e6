package io.gpupool.simulator.pool;

/** Makes a fresh engine-backed pool. */
@FunctionalInterface
public interface PoolFactory {

    SimulatedPool create(PoolSettings settings);
}
