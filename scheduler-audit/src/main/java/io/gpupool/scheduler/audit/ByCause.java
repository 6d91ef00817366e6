package io.gpupool.scheduler.audit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recorded outputs (decisions, node commands) indexed by the journal entry that caused them, and
 * within an entry by a deterministic key, so that an audit matches them by key, not by order.
 */
final class ByCause<T> {
    private final Map<Integer, Map<Long, LinkedHashMap<String, T>>> byCause = new HashMap<>();

    /** The outputs of one entry, created when missing. */
    LinkedHashMap<String, T> at(final int partition, final long offset) {
        return byCause.computeIfAbsent(partition, p -> new HashMap<>())
                .computeIfAbsent(offset, o -> new LinkedHashMap<>(4));
    }

    /** Removes and returns the outputs caused by one entry (empty map when none). */
    Map<String, T> take(final int partition, final long offset) {
        final Map<Long, LinkedHashMap<String, T>> p = byCause.get(partition);
        final LinkedHashMap<String, T> at = p == null ? null : p.remove(offset);
        return at == null ? Collections.emptyMap() : at; // most entries cause nothing: no allocation
    }

    /** Outputs not taken yet whose cause lies in [from, to] of a partition, in offset order. */
    List<T> remaining(final int partition, final long from, final long to) {
        final List<T> left = new ArrayList<>();
        final Map<Long, LinkedHashMap<String, T>> p = byCause.get(partition);
        if (p != null) {
            p.entrySet().stream().filter(e -> e.getKey() >= from && e.getKey() <= to)
                    .sorted(Map.Entry.comparingByKey()).forEach(e -> left.addAll(e.getValue().values()));
        }
        return left;
    }
}
