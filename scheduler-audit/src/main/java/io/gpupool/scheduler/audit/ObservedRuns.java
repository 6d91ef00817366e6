package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.JournalRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How each run of each job really went, from the record: how long after its placement it started (STARTED
 * event), and how long it ran until its end event (from its start, or its placement when the sink reported
 * no start). A what-if re-times the events of a job's k-th placement by its k-th recorded run; a run the
 * record never saw end (still running when the history stops) does not end in the what-if either.
 */
final class ObservedRuns {
    /**
     * @param startLagMs placement to STARTED, -1 when none was reported
     * @param runtimeMs  start to end, -1 while it had not ended when the history stops
     * @param end        the end event, null while it had not ended
     */
    record Run(long startLagMs, long runtimeMs, JobEventType end) {
        boolean ended() {
            return end != null;
        }
    }

    /** One placement of a job as the record saw it, until its end event. */
    private static final class Open {
        final long placedMs;
        long startedMs = -1;

        Open(final long placedMs) {
            this.placedMs = placedMs;
        }

        Run ended(final long atMs, final JobEventType end) {
            return new Run(startedMs < 0 ? -1 : startedMs - placedMs, atMs - (startedMs < 0 ? placedMs : startedMs), end);
        }

        Run stillRunning() {
            return new Run(startedMs < 0 ? -1 : startedMs - placedMs, -1, null);
        }
    }

    private final Map<String, List<Run>> runs = new HashMap<>();

    ObservedRuns(final List<JournalRecord> journal, final List<PlacementDecision> recorded) {
        final Map<Long, List<PlacementDecision>> byOffset = new HashMap<>();
        for (final PlacementDecision d : recorded) {
            byOffset.computeIfAbsent(key(d.getCause().getPartition(), d.getCause().getOffset()),
                    k -> new ArrayList<>()).add(d);
        }
        final Map<String, Open> open = new LinkedHashMap<>();
        for (final JournalRecord r : journal) {
            if (r.entry().getPayload() instanceof JobEvent e) {
                final String job = e.getJobId().toString();
                final Open o = open.get(job);
                if (o != null && e.getType() == JobEventType.STARTED && o.startedMs < 0) {
                    o.startedMs = r.timestampMs();
                } else if (o != null && (e.getType() == JobEventType.COMPLETED || e.getType() == JobEventType.FAILED
                        || e.getType() == JobEventType.EVICTED)) {
                    runs.computeIfAbsent(job, k -> new ArrayList<>()).add(o.ended(r.timestampMs(), e.getType()));
                    open.remove(job);
                }
            }
            for (final PlacementDecision d : byOffset.getOrDefault(key(r.partition(), r.offset()), List.of())) {
                if (d.getOutcome() == DecisionOutcome.PLACED) {
                    final String job = d.getJobId().toString();
                    final Open before = open.put(job, new Open(r.timestampMs()));
                    if (before != null) {
                        // placed again with no end event of the run before (the scheduler ended it): it ran to here
                        runs.computeIfAbsent(job, k -> new ArrayList<>()).add(before.stillRunning());
                    }
                }
            }
        }
        open.forEach((job, o) -> runs.computeIfAbsent(job, k -> new ArrayList<>()).add(o.stillRunning()));
    }

    private static long key(final int partition, final long offset) {
        return ((long) partition << 40) ^ offset;
    }

    /**
     * The recorded run for a job's {@code placement}-th placement (0 first); a what-if that places a job more
     * often than the record did takes its last recorded run. Null for a job the record never placed.
     */
    Run of(final String jobId, final int placement) {
        final List<Run> r = runs.get(jobId);
        return r == null ? null : r.get(Math.min(placement, r.size() - 1));
    }
}
