package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a recorded decisions log: replayed in journal order per pool, no GPU is ever held by two
 * jobs at once (shares counted by milli-GPU), and every job's decisions form one valid chain.
 */
final class DecisionLog {
    private DecisionLog() {
    }

    static long sequence(final PlacementDecision d) {
        final String id = d.getDecisionId();
        final String tail = id.substring(id.lastIndexOf('-') + 1);
        return tail.chars().allMatch(Character::isDigit) && !id.contains("-j") ? Long.parseLong(tail) : -1;
    }

    /** Problems found; empty when the log is consistent. */
    static List<String> problems(final List<PlacementDecision> all) {
        final List<String> problems = new ArrayList<>();
        final Set<String> ids = new HashSet<>();
        for (final PlacementDecision d : all) {
            if (!ids.add(d.getDecisionId())) {
                problems.add("decision " + d.getDecisionId() + " appears twice");
            }
        }
        final Map<String, List<PlacementDecision>> byPool = new HashMap<>();
        all.forEach(d -> byPool.computeIfAbsent(d.getPool(), p -> new ArrayList<>()).add(d));
        for (final List<PlacementDecision> pool : byPool.values()) {
            pool.sort(Comparator.<PlacementDecision>comparingInt(d -> d.getCause().getPartition())
                    .thenComparingLong(d -> d.getCause().getOffset())
                    // one journal entry can cause several decisions (a release, then placements from the
                    // queue); they reach the decisions topic on different partitions, so order them by the
                    // engine's decision sequence, the last part of the id
                    .thenComparingLong(DecisionLog::sequence));
            final Map<String, Integer> milliUsed = new HashMap<>();
            final Map<String, List<String>> held = new HashMap<>();
            for (final PlacementDecision d : pool) {
                if (d.getOutcome() == DecisionOutcome.PLACED) {
                    if (held.containsKey(d.getJobId())) {
                        problems.add("job " + d.getJobId() + " placed twice without release (" + d.getDecisionId() + ")");
                    }
                    final List<String> gpus = new ArrayList<>();
                    for (final NodeAssignment a : d.getAssignments()) {
                        for (final GpuAssignment g : a.getGpus()) {
                            final String key = a.getNodeId() + "/" + g.getIndex();
                            final int used = milliUsed.merge(key, g.getMilli(), Integer::sum);
                            if (used > 1000) {
                                problems.add("GPU " + key + " over-allocated (" + used + " milli) by " + d.getDecisionId());
                            }
                            gpus.add(key + "=" + g.getMilli());
                        }
                    }
                    held.put(d.getJobId(), gpus);
                } else if (d.getOutcome() == DecisionOutcome.RELEASED || d.getOutcome() == DecisionOutcome.EVICTED
                        || d.getOutcome() == DecisionOutcome.CANCELLED) {
                    final List<String> gpus = held.remove(d.getJobId());
                    if (gpus != null) {
                        for (final String g : gpus) {
                            final String[] kv = g.split("=");
                            milliUsed.merge(kv[0], -Integer.parseInt(kv[1]), Integer::sum);
                        }
                    } else if (d.getOutcome() != DecisionOutcome.CANCELLED) {
                        problems.add(d.getOutcome() + " of job " + d.getJobId() + " that holds nothing (" + d.getDecisionId() + ")");
                    }
                }
            }
        }
        return problems;
    }
}
