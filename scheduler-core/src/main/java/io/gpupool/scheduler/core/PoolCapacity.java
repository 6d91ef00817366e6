package io.gpupool.scheduler.core;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** Capacity by GPU model (sorted by model name) and the fragmentation figure. */
public record PoolCapacity(Map<String, ModelCapacity> byModel, double fragmentation) {
    public PoolCapacity {
        byModel = Collections.unmodifiableMap(new TreeMap<>(byModel));
    }
}
