package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Per node, an exhaustive branch and bound over the node's own victims (cheapest first) that gives
 * its cheapest sets, one per victim count. Dominated sets are pruned (a set that is not cheaper in lost
 * GPU-time than one with fewer victims is never useful), and so is a branch whose remaining victims
 * all freed would still not make the node fit, or that costs no less than the best whole set so far.
 */
final class NodeOptionSearch {
    private final SearchWork work;

    // ---- scratch of the node in progress
    private NodeFit f;
    private List<VictimPart> parts;
    private NodeOption[] out;
    private boolean unlimited;
    /** What the rest of the set costs already (the coupling victims freed), and the best whole set so far. */
    private VictimSearch.Cost coupled;
    private VictimSearch.Cost best;

    NodeOptionSearch(final SearchWork work) {
        this.work = work;
    }

    /**
     * The node's cheapest sets of its own victims {@code parts} that make it fit, indexed by victim
     * count up to {@code cap}; dominated ones are left out (null).
     */
    NodeOption[] options(final NodeFit node, final List<VictimPart> ps, final int cap, final VictimSearch.Cost coupledCost,
                         final VictimSearch.Cost bestSoFar) {
        final NodeOption[] result = new NodeOption[Math.min(cap, ps.size()) + 1];
        if (node.fits()) {
            result[0] = NodeOption.EMPTY;
            return result;
        }
        f = node;
        parts = ps;
        out = result;
        unlimited = cap == Integer.MAX_VALUE;
        coupled = coupledCost;
        best = bestSoFar;
        branch(0, new ArrayList<>(), 0, 0);
        f = null;
        parts = null;
        out = null;
        return result;
    }

    private void branch(final int i, final List<Victim> chosen, final long lost, final long seq) {
        final int c0 = chosen.size();
        if (work.exhausted() || c0 + 1 >= out.length || i >= parts.size()) {
            return;
        }
        for (int c = 0; c <= c0; c++) {
            if (out[c] != null && out[c].lost() <= lost) {
                return; // anything added has more victims and no less lost
            }
        }
        if (unlimited) {
            final NodeOption b = NodeOption.cheapest(out);
            if (b != null && (lost > b.lost() || (lost == b.lost() && c0 + 1 > b.count()))) {
                return;
            }
        }
        if (best != null) {
            final long l = StreamTime.plus(coupled.lostMilliGpuMs(), lost);
            if (l > best.lostMilliGpuMs() || (l == best.lostMilliGpuMs() && coupled.victims() + c0 + 1 > best.victims())) {
                return; // no better than the best whole set, even if the other nodes cost nothing
            }
        }
        if (!f.fitsFreeingFrom(parts, i)) {
            return; // even all the rest would not make it fit
        }
        final VictimPart p = parts.get(i);
        f.free(p.a(), 1);
        chosen.add(p.v());
        final long l2 = StreamTime.plus(lost, p.v().lost);
        final long s2 = seq + p.v().job.submitSeq;
        final boolean fits = f.fits();
        if (fits) {
            final NodeOption o = out[c0 + 1];
            if (o == null || l2 < o.lost() || (l2 == o.lost() && s2 > o.seqSum())) {
                out[c0 + 1] = new NodeOption(l2, s2, c0 + 1, List.copyOf(chosen));
            }
        } else {
            branch(i + 1, chosen, l2, s2);
        }
        chosen.remove(c0);
        f.free(p.a(), -1);
        if (!fits) {
            // when p completes the set, a set without p adds later parts instead: each no cheaper than p
            // (cheapest first), so it is no cheaper with as many victims, and dominated with more
            branch(i + 1, chosen, lost, seq);
        }
    }
}
