package io.gpupool.scheduler.journal;

import io.gpupool.scheduler.core.GpuView;
import io.gpupool.scheduler.core.NodeView;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GPU uuid <-> index and leaf/spine of each node, as the engine knows them; cached per node because
 * building a node view for every fact is wasteful, dropped when the node's inventory changes. Derived
 * from the engine only, so a restored engine gives the same answers.
 */
final class GpuUuids {
    record NodeInfo(List<String> uuids, String leaf, String spine) {
    }

    private final Map<String, NodeInfo> byNode = new HashMap<>();

    NodeInfo of(final PoolEngine engine, final String nodeId) {
        final NodeInfo cached = byNode.get(nodeId);
        if (cached != null) {
            return cached;
        }
        final NodeView v = engine.node(nodeId).orElse(null);
        if (v == null) {
            return null;
        }
        final List<String> uuids = new ArrayList<>(v.gpus().size());
        for (final GpuView g : v.gpus()) {
            uuids.add(g.uuid());
        }
        final NodeInfo info = new NodeInfo(uuids, v.leaf(), v.spine());
        byNode.put(nodeId, info);
        return info;
    }

    int index(final PoolEngine engine, final String nodeId, final String uuid) {
        final NodeInfo info = of(engine, nodeId);
        return info == null ? -1 : info.uuids().indexOf(uuid);
    }

    /** {@code gpu} when the engine knows that GPU of the node, else -1. */
    int known(final PoolEngine engine, final String nodeId, final int gpu) {
        final NodeInfo info = of(engine, nodeId);
        return info != null && gpu >= 0 && gpu < info.uuids().size() ? gpu : -1;
    }

    void forget(final String nodeId) {
        byNode.remove(nodeId);
    }
}
