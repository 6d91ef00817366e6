package io.gpupool.scheduler.core;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/** Waiting jobs by priority class and by tenant. */
public record QueueDepth(int total, Map<PriorityClass, Integer> byClass, Map<String, Integer> byTenant) {
    public QueueDepth {
        byClass = Collections.unmodifiableMap(new EnumMap<>(byClass.isEmpty()
                ? Map.of(PriorityClass.BATCH, 0) : byClass));
        byTenant = Collections.unmodifiableMap(new TreeMap<>(byTenant));
    }
}
