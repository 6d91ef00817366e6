package io.gpupool.scheduler.audit;

import io.gpupool.avro.PlacementDecision;
import java.util.List;
import java.util.Map;

/**
 * The recorded decisions indexed by the journal entry that caused them. Decisions are keyed by job
 * on their topic, so one entry's decisions may sit on several partitions: within an entry they are
 * matched by their deterministic decision id, not by order.
 */
public final class RecordedDecisions {
    private final ByCause<PlacementDecision> byCause = new ByCause<>();
    private int size;

    public void add(final PlacementDecision d) {
        if (byCause.at(d.getCause().getPartition(), d.getCause().getOffset()).put(d.getDecisionId().toString(), d) == null) {
            size++;
        }
    }

    public static RecordedDecisions of(final Iterable<PlacementDecision> decisions) {
        final RecordedDecisions r = new RecordedDecisions();
        decisions.forEach(r::add);
        return r;
    }

    /** Removes and returns the decisions caused by one entry (empty map when none). */
    Map<String, PlacementDecision> take(final int partition, final long offset) {
        return byCause.take(partition, offset);
    }

    /** Decisions not taken yet whose cause lies in [from, to] of a partition, in offset order. */
    List<PlacementDecision> remaining(final int partition, final long from, final long to) {
        return byCause.remaining(partition, from, to);
    }

    public int size() {
        return size;
    }
}
