package io.gpupool.simulator.pool;

/**
 * A node as the simulator hands it to the engine: capacity only, healthy, no topology beyond the node.
 *
 * @param gpuModel empty for CPU-only nodes
 */
public record SimNode(String id, long cpuMilli, long memoryMib, int gpuCount, String gpuModel) {
}
