package io.gpupool.scheduler.core;

import java.util.List;

/** A victim set on one node that makes the node fit: one of the node's cheapest for its victim count. */
record NodeOption(long lost, long seqSum, int count, List<Victim> set) {
    /** The node fits as it is. */
    static final NodeOption EMPTY = new NodeOption(0, 0, 0, List.of());

    /** The cheapest of a node's options (indexed by victim count), or null when it has none. */
    static NodeOption cheapest(final NodeOption[] o) {
        NodeOption b = null;
        for (int c = 0; c < o.length; c++) {
            if (o[c] != null && (b == null || o[c].lost() < b.lost())) {
                b = o[c]; // counts rise with c: on equal lost the earlier (fewer victims) stays
            }
        }
        return b;
    }
}
