package io.gpupool.scheduler.core;

import java.util.Map;

/** Waiting jobs by priority class and by tenant. */
public record QueueDepth(int total, Map<PriorityClass, Integer> byClass, Map<String, Integer> byTenant) {
    public QueueDepth {
        byClass = java.util.Collections.unmodifiableMap(new java.util.EnumMap<>(byClass.isEmpty()
                ? Map.of(PriorityClass.BATCH, 0) : byClass));
        byTenant = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(byTenant));
    }
}
