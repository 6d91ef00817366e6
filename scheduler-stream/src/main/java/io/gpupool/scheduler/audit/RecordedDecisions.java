package io.gpupool.scheduler.audit;

import io.gpupool.avro.PlacementDecision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The recorded decisions indexed by the journal entry that caused them. Decisions are keyed by job
 * on their topic, so one entry's decisions may sit on several partitions: within an entry they are
 * matched by their deterministic decision id, not by order.
 */
public final class RecordedDecisions {
    private final Map<Integer, Map<Long, LinkedHashMap<String, PlacementDecision>>> byCause = new HashMap<>();
    private int size;

    public void add(final PlacementDecision d) {
        final LinkedHashMap<String, PlacementDecision> at = byCause
                .computeIfAbsent(d.getCause().getPartition(), p -> new HashMap<>())
                .computeIfAbsent(d.getCause().getOffset(), o -> new LinkedHashMap<>(4));
        if (at.put(d.getDecisionId().toString(), d) == null) {
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
        final Map<Long, LinkedHashMap<String, PlacementDecision>> p = byCause.get(partition);
        final LinkedHashMap<String, PlacementDecision> at = p == null ? null : p.remove(offset);
        return at == null ? java.util.Collections.emptyMap() : at; // most entries cause no decision: no allocation
    }

    /** Decisions not taken yet whose cause lies in [from, to] of a partition, in offset order. */
    List<PlacementDecision> remaining(final int partition, final long from, final long to) {
        final List<PlacementDecision> left = new ArrayList<>();
        final Map<Long, LinkedHashMap<String, PlacementDecision>> p = byCause.get(partition);
        if (p != null) {
            p.entrySet().stream().filter(e -> e.getKey() >= from && e.getKey() <= to)
                    .sorted(Map.Entry.comparingByKey()).forEach(e -> left.addAll(e.getValue().values()));
        }
        return left;
    }

    public int size() {
        return size;
    }
}
