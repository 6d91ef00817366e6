package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Nodes bucketed by their count of free healthy GPUs, per (leaf, GPU model) group, so that a
 * placement looks only at nodes that can take it. Buckets are bitsets over the group's members in
 * node-slot order: iteration order depends only on the current state, never on history, which
 * keeps decisions identical after a snapshot is restored.
 */
final class CapacityIndex {

    /** The nodes of one GPU model under one leaf. */
    static final class Group {
        final int leaf;
        final int model;
        int[] members = new int[0];
        /** bucket (free GPUs) -> bitset over member positions, all healthy nodes. */
        long[][] all = new long[0][];
        /** Same, only nodes fit for multi-node jobs (fabric links fine). */
        long[][] gang = new long[0][];
        int[] allCount = new int[NodeSpec.MAX_GPUS_PER_NODE + 1];
        int[] gangCount = new int[NodeSpec.MAX_GPUS_PER_NODE + 1];
        int maxGpus;

        Group(final int leaf, final int model) {
            this.leaf = leaf;
            this.model = model;
        }

        /** Nodes with at least {@code g} free GPUs (all, or only link-ok ones). */
        int countAtLeast(final int g, final boolean gangOnly) {
            final int[] c = gangOnly ? gangCount : allCount;
            int n = 0;
            for (int b = g; b <= maxGpus; b++) {
                n += c[b];
            }
            return n;
        }
    }

    private final List<Group> groups = new ArrayList<>();
    /** model -> its groups in leaf order. */
    private final List<List<Group>> byModel = new ArrayList<>();
    /** model -> bucket -> node count (all healthy nodes), to skip empty buckets quickly. */
    private final List<int[]> modelCounts = new ArrayList<>();
    /** slot -> group, and slot -> member position. */
    private Group[] groupOf = new Group[64];
    private int[] positionOf = new int[64];

    List<Group> groupsOf(final int model) {
        return model < byModel.size() ? byModel.get(model) : List.of();
    }

    int modelCount(final int model, final int bucket) {
        return model < modelCounts.size() ? modelCounts.get(model)[bucket] : 0;
    }

    Group groupOf(final NodeState n) {
        return groupOf[n.slot];
    }

    void add(final NodeState n) {
        ensureModel(n.modelIndex);
        ensureSlot(n.slot);
        Group g = null;
        for (final Group x : byModel.get(n.modelIndex)) {
            if (x.leaf == n.leafIndex) {
                g = x;
            }
        }
        if (g == null) {
            g = new Group(n.leafIndex, n.modelIndex);
            groups.add(g);
            final List<Group> list = byModel.get(n.modelIndex);
            int at = 0;
            while (at < list.size() && list.get(at).leaf < n.leafIndex) {
                at++;
            }
            list.add(at, g);
        }
        final int[] m = new int[g.members.length + 1];
        int i = 0;
        int j = 0;
        while (i < g.members.length && g.members[i] < n.slot) {
            m[j++] = g.members[i++];
        }
        m[j++] = n.slot;
        while (i < g.members.length) {
            m[j++] = g.members[i++];
        }
        g.members = m;
        g.maxGpus = Math.max(g.maxGpus, n.gpuCount);
        groupOf[n.slot] = g;
        modelCounts.get(n.modelIndex)[n.freeWhole]++;
        rebuild(g);
    }

    void remove(final NodeState n) {
        final Group g = groupOf[n.slot];
        final int[] m = new int[g.members.length - 1];
        int j = 0;
        for (final int s : g.members) {
            if (s != n.slot) {
                m[j++] = s;
            }
        }
        g.members = m;
        groupOf[n.slot] = null;
        modelCounts.get(n.modelIndex)[n.freeWhole]--;
        rebuild(g);
    }

    /** Call after a node's free count or link state changed. */
    void update(final NodeState n, final int oldFree, final boolean oldLinkOk) {
        final Group g = groupOf[n.slot];
        final int p = positionOf[n.slot];
        final int word = p >>> 6;
        final long bit = 1L << (p & 63);
        g.all[oldFree][word] &= ~bit;
        g.allCount[oldFree]--;
        if (oldLinkOk) {
            g.gang[oldFree][word] &= ~bit;
            g.gangCount[oldFree]--;
        }
        g.all[n.freeWhole][word] |= bit;
        g.allCount[n.freeWhole]++;
        if (n.linkOk()) {
            g.gang[n.freeWhole][word] |= bit;
            g.gangCount[n.freeWhole]++;
        }
        final int[] mc = modelCounts.get(n.modelIndex);
        mc[oldFree]--;
        mc[n.freeWhole]++;
    }

    /** First member position at or after {@code from} in bucket {@code b}, or -1. */
    static int next(final long[] bits, final int from) {
        int w = from >>> 6;
        if (w >= bits.length) {
            return -1;
        }
        long word = bits[w] & (-1L << (from & 63));
        while (true) {
            if (word != 0) {
                return (w << 6) + Long.numberOfTrailingZeros(word);
            }
            if (++w == bits.length) {
                return -1;
            }
            word = bits[w];
        }
    }

    private void rebuild(final Group g) {
        final int words = Math.max(1, (g.members.length + 63) >>> 6);
        g.all = new long[NodeSpec.MAX_GPUS_PER_NODE + 1][words];
        g.gang = new long[NodeSpec.MAX_GPUS_PER_NODE + 1][words];
        Arrays.fill(g.allCount, 0);
        Arrays.fill(g.gangCount, 0);
        for (int p = 0; p < g.members.length; p++) {
            final int slot = g.members[p];
            positionOf[slot] = p;
            final NodeState s = lookup.apply(slot);
            g.all[s.freeWhole][p >>> 6] |= 1L << (p & 63);
            g.allCount[s.freeWhole]++;
            if (s.linkOk()) {
                g.gang[s.freeWhole][p >>> 6] |= 1L << (p & 63);
                g.gangCount[s.freeWhole]++;
            }
        }
    }

    /** Resolves a slot to its node; the node must be registered before {@link #add}. */
    private final IntFunction<NodeState> lookup;

    CapacityIndex(final IntFunction<NodeState> lookup) {
        this.lookup = lookup;
    }

    private void ensureModel(final int model) {
        while (byModel.size() <= model) {
            byModel.add(new ArrayList<>());
            modelCounts.add(new int[NodeSpec.MAX_GPUS_PER_NODE + 1]);
        }
    }

    private void ensureSlot(final int slot) {
        if (slot >= groupOf.length) {
            final int len = Math.max(slot + 1, groupOf.length * 2);
            groupOf = Arrays.copyOf(groupOf, len);
            positionOf = Arrays.copyOf(positionOf, len);
        }
    }
}
