package io.gpupool.scheduler.core;

import java.util.Map;

/** Capacity by GPU model (sorted by model name) and the fragmentation figure. */
public record PoolCapacity(Map<String, ModelCapacity> byModel, double fragmentation) {
    public PoolCapacity {
        byModel = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(byModel));
    }
}
