package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.journal.JournalRecord;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Job-level accounting of a history, fed entry by entry: submits from the journal, then the
 * decisions in the order they were made. Time of a decision = its cause's timestamp.
 */
final class HistoryBook {
    private static final class Job {
        final String id;
        String pool = "";
        String tenant = "";
        int nodes;
        int gpus;
        long submit = -1;
        long start = -1;
        long end = -1;
        String outcome = "";
        String placement = "";
        final Set<String> reasons = new LinkedHashSet<>();
        int preemptions;

        Job(final String id) {
            this.id = id;
        }
    }

    private final Map<String, Job> jobs = new LinkedHashMap<>();

    void entry(final JournalRecord r) {
        if (r.entry().getPayload() instanceof JobCommand c && c.getCommand() instanceof JobSubmit s) {
            final Job j = jobs.computeIfAbsent(c.getJobId().toString(), Job::new);
            if (j.submit < 0) {
                final JobRequest q = s.getRequest();
                j.submit = r.timestampMs();
                j.pool = r.entry().getPool().toString();
                j.tenant = q.getTenant() == null ? "" : q.getTenant().toString();
                j.nodes = q.getNodes();
                j.gpus = q.getGpusPerNode();
            }
        }
    }

    void decision(final PlacementDecision d) {
        final Job j = jobs.computeIfAbsent(d.getJobId().toString(), Job::new);
        final long at = d.getCause().getTimestamp().toEpochMilli();
        if (j.pool.isEmpty()) {
            j.pool = d.getPool().toString();
        }
        j.outcome = outcome(d);
        if (d.getReasonCode() != null) {
            j.reasons.add(d.getReasonCode().toString());
        }
        switch (d.getOutcome()) {
            case PLACED -> {
                if (j.start < 0) {
                    j.start = at;
                }
                j.placement = placement(d.getAssignments());
                j.end = -1;
            }
            case RELEASED, CANCELLED, REJECTED -> j.end = at;
            case EVICTED -> {
                j.end = at;
                if ("PREEMPTED".equals(String.valueOf(d.getReasonCode()))) {
                    j.preemptions++;
                }
            }
            default -> {
            }
        }
        if (d.getOutcome() == DecisionOutcome.QUEUED) {
            j.end = -1;
        }
    }

    /**
     * A decision's outcome as a job's final state: a RELEASED decision ends a job that completed or failed
     * (its reason says which), so that is the outcome; RELEASED stays only where the reason says neither.
     */
    private static String outcome(final PlacementDecision d) {
        if (d.getOutcome() == DecisionOutcome.RELEASED && d.getReasonCode() != null) {
            final String reason = d.getReasonCode().toString();
            if (reason.equals(JobTimes.COMPLETED) || reason.equals(JobTimes.FAILED)) {
                return reason;
            }
        }
        return d.getOutcome().name();
    }

    List<JobTimes> jobs() {
        final List<JobTimes> out = new ArrayList<>(jobs.size());
        for (final Job j : jobs.values()) {
            out.add(new JobTimes(j.id, j.pool, j.tenant, j.nodes, j.gpus, j.submit, j.start, j.end, j.outcome,
                    j.placement, String.join("|", j.reasons), j.preemptions));
        }
        return out;
    }

    static String placement(final List<NodeAssignment> a) {
        final StringBuilder sb = new StringBuilder();
        for (final NodeAssignment n : a) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(n.getNodeId()).append('[');
            for (int i = 0; i < n.getGpus().size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(n.getGpus().get(i).getIndex());
                if (n.getGpus().get(i).getMilli() < InvariantChecker.FULL_GPU_MILLI) {
                    sb.append(':').append(n.getGpus().get(i).getMilli());
                }
            }
            sb.append(']');
        }
        return sb.toString();
    }
}
