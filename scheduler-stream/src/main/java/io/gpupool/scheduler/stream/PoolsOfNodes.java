package io.gpupool.scheduler.stream;

import java.util.Set;
import java.util.TreeMap;

/**
 * The pools a stage-1 task journals clock ticks to, with how many of its nodes each has: a pool whose
 * last node left (removed, or moved to another pool) is forgotten, so the set never outgrows the
 * pools that have nodes. Pool order (a TreeMap) keeps the ticks of one punctuation in a fixed order.
 */
final class PoolsOfNodes {
    private final TreeMap<String, Integer> nodes = new TreeMap<>();

    void nodeAdded(final String pool) {
        nodes.merge(pool, 1, Integer::sum);
    }

    void nodeRemoved(final String pool) {
        nodes.computeIfPresent(pool, (p, n) -> n > 1 ? n - 1 : null);
    }

    /** The pools with at least one node, in pool order. */
    Set<String> pools() {
        return nodes.keySet();
    }
}
