package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The recent mix of arriving task sizes: the last {@code window} arrivals, and from them the
 * "typical" shapes with their counts that the fragmentation policy weighs against (FGD's target
 * workload). The typical set is refreshed every {@link #refreshEvery} arrivals, not on every
 * arrival, so that a decision costs the same whatever the window.
 */
final class JobSizeMix {
    /** At most this many shapes are weighed; rarer ones matter little and cost time per decision. */
    static final int MAX_TYPICAL = 128;

    private final int window;
    private final int refreshEvery;
    final JobShape[] ring;
    int head;
    int size;
    int sinceRefresh;
    private final TreeMap<JobShape, Integer> counts = new TreeMap<>();
    /** The weighed shapes and their counts (deterministic order). */
    JobShape[] typical = new JobShape[0];
    long[] weights = new long[0];
    /** Per typical shape, per model index: allowed? Filled lazily. */
    private boolean[][] allowedByModel = new boolean[0][];

    JobSizeMix(final int window) {
        this.window = window;
        this.refreshEvery = Math.max(1, Math.min(64, window / 20));
        this.ring = new JobShape[window];
    }

    void arrived(final JobSpec spec) {
        final JobShape s = JobShape.of(spec);
        if (size == window) {
            final JobShape old = ring[head];
            final int c = counts.get(old) - 1;
            if (c == 0) {
                counts.remove(old);
            } else {
                counts.put(old, c);
            }
        } else {
            size++;
        }
        ring[head] = s;
        head = (head + 1) % window;
        counts.merge(s, 1, Integer::sum);
        if (++sinceRefresh >= refreshEvery || typical.length == 0) {
            refresh();
        }
    }

    void refresh() {
        sinceRefresh = 0;
        final List<Map.Entry<JobShape, Integer>> all = new ArrayList<>(counts.entrySet());
        // stable sort over the TreeMap order: ties keep shape order
        all.sort((a, b) -> Integer.compare(b.getValue(), a.getValue()));
        final int n = Math.min(MAX_TYPICAL, all.size());
        setTypical(all.subList(0, n));
    }

    /** Changes whenever the typical set changes: invalidates cached node fragmentation. */
    int version;

    void setTypical(final List<Map.Entry<JobShape, Integer>> entries) {
        version++;
        typical = new JobShape[entries.size()];
        weights = new long[entries.size()];
        for (int i = 0; i < entries.size(); i++) {
            typical[i] = entries.get(i).getKey();
            weights[i] = entries.get(i).getValue();
        }
        allowedByModel = new boolean[typical.length][];
    }

    boolean allowed(final int shape, final int model, final NameTable models) {
        boolean[] a = allowedByModel[shape];
        if (a == null || a.length <= model) {
            a = new boolean[models.size()];
            for (int m = 0; m < a.length; m++) {
                a[m] = typical[shape].allows(models.name(m));
            }
            allowedByModel[shape] = a;
        }
        return a[model];
    }

    /** Rebuilds the counts from the ring after a restore. */
    void recount() {
        counts.clear();
        for (int i = 0; i < size; i++) {
            final int at = Math.floorMod(head - size + i, window);
            counts.merge(ring[at], 1, Integer::sum);
        }
    }

    int window() {
        return window;
    }
}
