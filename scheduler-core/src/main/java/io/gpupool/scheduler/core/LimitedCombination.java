package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * With a count limit (consolidation), the cheapest way to make {@code need} nodes of a scope fit from
 * their per-node options: a small dynamic programme over (nodes chosen, victims used), each cell the
 * least lost (then the youngest), which is exact. Candidates are cut to the {@code need} cheapest nodes
 * per victim count first: a cheaper node with as many victims can always take a dearer one's place
 * (an exchange argument).
 */
final class LimitedCombination {
    /** The nodes' options chosen, and the cost of the whole set with them. */
    record Combination(VictimSearch.Cost cost, List<NodeOption> chosen) {
    }

    private LimitedCombination() {
    }

    /**
     * The cheapest combination of {@code need} nodes' options with at most {@code cap} victims in all,
     * added to {@code coupled} (what the coupling victims already cost); null when there is none or the
     * bound cut it short.
     */
    static Combination cheapest(final NodeOption[][] opts, final int need, final int cap,
                                final VictimSearch.Cost coupled, final SearchWork work) {
        if (cap < 0) {
            return null;
        }
        final List<Integer> kept = cheapestPerCount(opts, need, cap);
        if (kept.size() < need) {
            return null;
        }
        final long[][] lost = new long[need + 1][cap + 1];
        final long[][] seq = new long[need + 1][cap + 1];
        final boolean[][] reach = new boolean[need + 1][cap + 1];
        reach[0][0] = true;
        final int[][][] choice = new int[kept.size()][][];
        for (int t = 0; t < kept.size(); t++) {
            final NodeOption[] o = opts[kept.get(t)];
            final int[][] ch = new int[need + 1][cap + 1];
            for (final int[] row : ch) {
                Arrays.fill(row, -1);
            }
            choice[t] = ch;
            for (int jn = need - 1; jn >= 0; jn--) {
                for (int u = cap; u >= 0; u--) {
                    if (!reach[jn][u]) {
                        continue;
                    }
                    for (int c = 0; c < o.length && u + c <= cap; c++) {
                        if (o[c] == null) {
                            continue;
                        }
                        work.step();
                        final long l = StreamTime.plus(lost[jn][u], o[c].lost());
                        final long s = seq[jn][u] + o[c].seqSum();
                        if (!reach[jn + 1][u + c] || l < lost[jn + 1][u + c]
                                || (l == lost[jn + 1][u + c] && s > seq[jn + 1][u + c])) {
                            reach[jn + 1][u + c] = true;
                            lost[jn + 1][u + c] = l;
                            seq[jn + 1][u + c] = s;
                            ch[jn + 1][u + c] = c;
                        }
                    }
                }
            }
            if (work.exhausted()) {
                return null;
            }
        }
        int bestU = -1;
        VictimSearch.Cost bestHere = null;
        for (int u = 0; u <= cap; u++) {
            if (reach[need][u]) {
                final VictimSearch.Cost c = coupled.plus(lost[need][u], u, seq[need][u]);
                if (bestHere == null || c.compareTo(bestHere) < 0) {
                    bestHere = c;
                    bestU = u;
                }
            }
        }
        if (bestHere == null) {
            return null;
        }
        final List<NodeOption> chosen = new ArrayList<>();
        int jn = need;
        int u = bestU;
        for (int t = kept.size() - 1; t >= 0 && jn > 0; t--) {
            final int c = choice[t][jn][u];
            if (c >= 0) {
                chosen.add(opts[kept.get(t)][c]);
                jn--;
                u -= c;
            }
        }
        return new Combination(bestHere, chosen);
    }

    /** The candidates among the {@code need} cheapest for some victim count up to {@code cap}, in candidate order. */
    private static List<Integer> cheapestPerCount(final NodeOption[][] opts, final int need, final int cap) {
        final boolean[] keep = new boolean[opts.length];
        for (int c = 0; c <= cap; c++) {
            final List<Integer> with = new ArrayList<>();
            for (int i = 0; i < opts.length; i++) {
                if (c < opts[i].length && opts[i][c] != null) {
                    with.add(i);
                }
            }
            final int cc = c;
            with.sort(Comparator.<Integer>comparingLong(i -> opts[i][cc].lost()).thenComparingLong(i -> -opts[i][cc].seqSum()));
            for (int k = 0; k < Math.min(need, with.size()); k++) {
                keep[with.get(k)] = true;
            }
        }
        final List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < opts.length; i++) {
            if (keep[i]) {
                kept.add(i);
            }
        }
        return kept;
    }
}
