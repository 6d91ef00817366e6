package io.gpupool.collector.sim;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * What the sink reports as running, fed to the simulated fleet so that its load follows the
 * placements: a GPU in this set looks busy, the others idle. Thread-safe; replaced wholesale.
 */
public final class BusyGpus {
    private volatile Set<String> busy = Set.of();

    /** Replaces the set of busy GPU uuids. */
    public void set(final Collection<String> uuids) {
        busy = Set.copyOf(uuids);
    }

    public void add(final Collection<String> uuids) {
        synchronized (this) {
            final HashSet<String> next = new HashSet<>(busy);
            next.addAll(uuids);
            busy = Set.copyOf(next);
        }
    }

    public void remove(final Collection<String> uuids) {
        synchronized (this) {
            final HashSet<String> next = new HashSet<>(busy);
            next.removeAll(uuids);
            busy = Set.copyOf(next);
        }
    }

    public boolean isBusy(final String uuid) {
        return busy.contains(uuid);
    }

    public Set<String> snapshot() {
        return busy;
    }
}
