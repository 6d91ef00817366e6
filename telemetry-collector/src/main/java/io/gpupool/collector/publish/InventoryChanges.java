package io.gpupool.collector.publish;

import io.gpupool.avro.NodeInventory;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Tells whether a node's inventory differs from the one last published, ignoring when it was
 * observed: the compacted inventory topic gets a record at start and on change, not every poll.
 */
public final class InventoryChanges {
    private final Map<String, NodeInventory> lastByNode = new HashMap<>();

    /** True (and remembered) when the inventory is new or changed. */
    public synchronized boolean changed(final NodeInventory inventory) {
        final NodeInventory comparable = NodeInventory.newBuilder(inventory).setObservedAt(Instant.EPOCH).build();
        final NodeInventory last = lastByNode.put(inventory.getNodeId(), comparable);
        return !comparable.equals(last);
    }

    /** Forget a node, so its next inventory is published again (after it went silent, for instance). */
    public synchronized void forget(final String nodeId) {
        lastByNode.remove(nodeId);
    }
}
