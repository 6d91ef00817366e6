package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
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
    private final int popularityPct;
    final JobShape[] ring;
    int head;
    int size;
    int sinceRefresh;
    private final TreeMap<JobShape, Integer> counts = new TreeMap<>();
    /** The weighed shapes and their counts (deterministic order). */
    JobShape[] typical = new JobShape[0];
    long[] weights = new long[0];
    /**
     * The typical shapes grouped by GPU demand (GPUs, milli-GPU, models), which is what the GPU part
     * of the fragment depends on; inside a group, CPU demands sorted with prefix sums of the counts,
     * so that the weight of "needs more CPU than the node has left" is one binary search.
     */
    /** Sum of the typical shapes' counts, and of those that ask for no GPU. */
    long totalWeight;
    long cpuOnlyWeight;
    int[] groupGpus = new int[0];
    int[] groupMilli = new int[0];
    String[] groupModels = new String[0];
    long[][] groupCpu = new long[0][];
    /** groupWeightPrefix[g][i] = sum of counts of the group's first i shapes (CPU ascending). */
    long[][] groupWeightPrefix = new long[0][];
    /** Per group, per model index: allowed? Filled lazily. */
    private boolean[][] allowedByModel = new boolean[0][];

    JobSizeMix(final int window) {
        this(window, 100);
    }

    JobSizeMix(final int window, final int popularityPct) {
        this.window = window;
        this.popularityPct = popularityPct;
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
        // FGD's typical pods: the most frequent shapes until they make up popularityPct of the arrivals
        long total = 0;
        for (final Map.Entry<JobShape, Integer> e : all) {
            total += e.getValue();
        }
        int n = 0;
        long covered = 0;
        while (n < all.size() && n < MAX_TYPICAL && covered * 100 < popularityPct * total) {
            covered += all.get(n++).getValue();
        }
        setTypical(all.subList(0, n));
    }

    /** Changes whenever the typical set changes: invalidates cached node fragmentation. */
    int version;

    void setTypical(final List<Map.Entry<JobShape, Integer>> entries) {
        version++;
        typical = new JobShape[entries.size()];
        weights = new long[entries.size()];
        totalWeight = 0;
        cpuOnlyWeight = 0;
        for (int i = 0; i < entries.size(); i++) {
            typical[i] = entries.get(i).getKey();
            weights[i] = entries.get(i).getValue();
            totalWeight += weights[i];
            if (typical[i].gpus() == 0) {
                cpuOnlyWeight += weights[i];
            }
        }
        // group by GPU demand; shape order (gpus, milli, cpu, models) would split groups by CPU, so sort explicitly
        final Integer[] order = new Integer[typical.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            final JobShape x = typical[a];
            final JobShape y = typical[b];
            int c = Integer.compare(x.gpus(), y.gpus());
            if (c == 0) {
                c = Integer.compare(x.milli(), y.milli());
            }
            if (c == 0) {
                c = x.models().compareTo(y.models());
            }
            return c != 0 ? c : Long.compare(x.cpuMilli(), y.cpuMilli());
        });
        final List<int[]> bounds = new ArrayList<>();
        int start = 0;
        for (int i = 1; i <= order.length; i++) {
            if (i == order.length || !sameGpuDemand(typical[order[i]], typical[order[start]])) {
                bounds.add(new int[] {start, i});
                start = i;
            }
        }
        final int groups = bounds.size();
        groupGpus = new int[groups];
        groupMilli = new int[groups];
        groupModels = new String[groups];
        groupCpu = new long[groups][];
        groupWeightPrefix = new long[groups][];
        for (int g = 0; g < groups; g++) {
            final int from = bounds.get(g)[0];
            final int to = bounds.get(g)[1];
            final JobShape first = typical[order[from]];
            groupGpus[g] = first.gpus();
            groupMilli[g] = first.milli();
            groupModels[g] = first.models();
            groupCpu[g] = new long[to - from];
            groupWeightPrefix[g] = new long[to - from + 1];
            for (int i = from; i < to; i++) {
                groupCpu[g][i - from] = typical[order[i]].cpuMilli();
                groupWeightPrefix[g][i - from + 1] = groupWeightPrefix[g][i - from] + weights[order[i]];
            }
        }
        allowedByModel = new boolean[groups][];
    }

    private static boolean sameGpuDemand(final JobShape a, final JobShape b) {
        return a.gpus() == b.gpus() && a.milli() == b.milli() && a.models().equals(b.models());
    }

    /** Whether group {@code group} may run on GPU model {@code model}. */
    boolean allowed(final int group, final int model, final NameTable models) {
        boolean[] a = allowedByModel[group];
        if (a == null || a.length <= model) {
            a = new boolean[models.size()];
            final JobShape probe = new JobShape(0, 0, 0, groupModels[group]);
            for (int m = 0; m < a.length; m++) {
                a[m] = probe.allows(models.name(m));
            }
            allowedByModel[group] = a;
        }
        return a[model];
    }

    /** Count of the group's shapes that need more CPU than {@code cpuFree}. */
    long weightNeedingMoreCpu(final int group, final long cpuFree) {
        final long[] cpu = groupCpu[group];
        int lo = 0;
        int hi = cpu.length;
        while (lo < hi) { // first shape with cpu > cpuFree
            final int mid = (lo + hi) >>> 1;
            if (cpu[mid] <= cpuFree) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        final long[] prefix = groupWeightPrefix[group];
        return prefix[cpu.length] - prefix[lo];
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
