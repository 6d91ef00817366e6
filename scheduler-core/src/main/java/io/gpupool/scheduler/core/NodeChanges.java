package io.gpupool.scheduler.core;

import java.util.Arrays;

/**
 * The slots of the nodes that changed ({@link NodeState#changed}), in order, for the structures kept
 * up to date from them ({@link ReadyOrder}) instead of walking every node. Derived, never stored. It
 * starts over after {@link #LIMIT} entries with a new generation; a reader that finds its generation
 * gone rebuilds from the nodes.
 */
final class NodeChanges {
    static final int LIMIT = 1 << 16;

    private int[] slots = new int[64];
    private int size;
    private long generation;

    void changed(final int slot) {
        if (size == LIMIT) {
            size = 0;
            generation++;
        }
        if (size == slots.length) {
            slots = Arrays.copyOf(slots, size * 2);
        }
        slots[size++] = slot;
    }

    int size() {
        return size;
    }

    long generation() {
        return generation;
    }

    int slot(final int at) {
        return slots[at];
    }
}
