package io.gpupool.scheduler.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The enum ordinals of snapshot versions 1 to 5, frozen. Those versions wrote each enum value as its
 * ordinal (one byte; two for reason codes), so an ordinal in such a snapshot means the constant that
 * had it when version 5 was current: listed here by name, in that order. Never edit these lists: a
 * constant added to, moved in or removed from an enum changes the version 6 name table, which
 * {@link SnapshotEnums} writes from the enum itself, and must not change what an old snapshot says.
 */
final class SnapshotLegacyOrdinals {
    static final SnapshotEnums ENUMS;

    static {
        final Map<String, List<String>> ordinals = new LinkedHashMap<>();
        ordinals.put("hca-link-layer", List.of("INFINIBAND", "ETHERNET"));
        ordinals.put("job-state", List.of("QUEUED", "PLACED", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", "REJECTED",
                "EVICTED"));
        ordinals.put("priority-class", List.of("BEST_EFFORT", "BATCH", "PRODUCTION"));
        ordinals.put("gang-scope", List.of("NODE", "LEAF", "SPINE", "POOL"));
        ordinals.put("network", List.of("INFINIBAND", "ROCE", "ANY"));
        ordinals.put("reason-code", List.of("PLACED", "COMPLETED", "FAILED", "CANCELLED_BY_USER",
                "INSUFFICIENT_FREE_GPUS", "UNHEALTHY_GPUS", "NO_NODE_WITH_ENOUGH_FREE_GPUS", "NO_LEAF_FOR_GANG",
                "NO_SPINE_FOR_GANG", "LINK_EXCLUDED", "INSUFFICIENT_CPU_OR_MEMORY", "INSUFFICIENT_GPU_MEMORY",
                "NETWORK_UNAVAILABLE", "NO_NODES", "QUOTA_EXHAUSTED", "RESERVED_FOR_HEAD_OF_QUEUE",
                "WAITING_FOR_HIGHER_PRIORITY", "INVALID_REQUEST", "UNKNOWN_MODEL", "EXCEEDS_POOL_CAPACITY",
                "GANG_LARGER_THAN_POOL", "DEADLINE_UNREACHABLE", "DUPLICATE_JOB", "HARDWARE_FAILURE", "LINK_FAILURE",
                "NODE_REMOVED", "PREEMPTED", "CONSOLIDATED", "EVICTED_BY_NODE"));
        ordinals.put("decision-kind", List.of("PLACED", "QUEUED", "REJECTED", "EVICTED", "CANCELLED", "RELEASED"));
        ENUMS = SnapshotEnums.byNames(ordinals, "reason-code");
    }

    private SnapshotLegacyOrdinals() {
    }
}
