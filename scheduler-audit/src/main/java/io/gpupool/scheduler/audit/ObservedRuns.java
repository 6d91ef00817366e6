package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.JournalRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How long each job really ran, from the record: the end event's time minus the time it started
 * (STARTED event, or its placement when the sink reported no start), and how long after its
 * placement it started. A what-if re-times a job's events by these when it is placed at another time.
 */
final class ObservedRuns {
    /** @param startLagMs placement to STARTED, -1 when none was reported */
    record Run(long startLagMs, long runtimeMs, JobEventType end) {
    }

    private final Map<String, Run> runs = new HashMap<>();

    ObservedRuns(final List<JournalRecord> journal, final List<PlacementDecision> recorded) {
        final Map<String, Long> placed = new HashMap<>();
        final Map<Long, List<PlacementDecision>> byOffset = new HashMap<>();
        for (final PlacementDecision d : recorded) {
            byOffset.computeIfAbsent(key(d.getCause().getPartition(), d.getCause().getOffset()),
                    k -> new ArrayList<>()).add(d);
        }
        final Map<String, Long> started = new HashMap<>();
        for (final JournalRecord r : journal) {
            if (r.entry().getPayload() instanceof JobEvent e) {
                final String job = e.getJobId().toString();
                final Long at = placed.get(job);
                if (at != null && e.getType() == JobEventType.STARTED) {
                    started.put(job, r.timestampMs());
                } else if (at != null && (e.getType() == JobEventType.COMPLETED || e.getType() == JobEventType.FAILED
                        || e.getType() == JobEventType.EVICTED)) {
                    final Long s = started.get(job);
                    final long from = s == null ? at : s;
                    runs.put(job, new Run(s == null ? -1 : s - at, r.timestampMs() - from, e.getType()));
                }
            }
            for (final PlacementDecision d : byOffset.getOrDefault(key(r.partition(), r.offset()), List.of())) {
                if (d.getOutcome() == DecisionOutcome.PLACED) {
                    placed.put(d.getJobId().toString(), r.timestampMs());
                    started.remove(d.getJobId().toString());
                }
            }
        }
    }

    private static long key(final int partition, final long offset) {
        return ((long) partition << 40) ^ offset;
    }

    Run of(final String jobId) {
        return runs.get(jobId);
    }
}
