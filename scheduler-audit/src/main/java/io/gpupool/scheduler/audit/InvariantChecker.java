package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.GpuView;
import io.gpupool.scheduler.core.NodeView;
import io.gpupool.scheduler.core.PlacementPart;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.JournalRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks the history's invariants decision by decision, after each journal entry (the "moment"):
 * no GPU holds more than 1000 milli-GPU, a job holds resources at most once and releases exactly
 * what it holds (one state at a time), a gang gets all its nodes or none, and nothing is placed on a
 * GPU the engine saw as unhealthy at that moment (nor a multi-node gang on a node with bad links). It reads the recorded decisions, so it judges what
 * really happened, with the health the re-run engine derived from the same inputs.
 */
final class InvariantChecker {
    static final int FULL_GPU_MILLI = 1000;

    /** What a job holds now, or null when it holds nothing. */
    private final Map<String, List<NodeAssignment>> holding = new HashMap<>();
    private final Map<String, DecisionOutcome> last = new HashMap<>();
    private final Map<String, JobRequest> requests = new HashMap<>();
    private final Map<String, Long> submittedAt = new HashMap<>();
    /** milli-GPU in use per GPU uuid (node id + index when the uuid is unknown). */
    private final Map<String, Integer> used = new HashMap<>();
    private final List<Violation> violations = new ArrayList<>();
    private final int keep;
    private int count;

    InvariantChecker(final int keep) {
        this.keep = keep;
    }

    /** Starting from a snapshot: the jobs that hold resources in it hold them here too. */
    void seed(final PoolEngine engine) {
        for (final NodeView n : engine.nodes()) {
            for (final String job : n.jobs()) {
                if (holding.containsKey(job)) {
                    continue;
                }
                engine.job(job).filter(v -> v.state().holdsResources()).ifPresent(v -> {
                    final List<NodeAssignment> held = new ArrayList<>();
                    for (final PlacementPart a : v.placement()) {
                        final List<GpuAssignment> gpus = new ArrayList<>();
                        for (final int g : a.gpus()) {
                            gpus.add(new GpuAssignment(a.nodeId() + "/gpu" + g, g, a.gpuMilli()));
                            used.merge(a.nodeId() + "/" + g, a.gpuMilli(), Integer::sum);
                        }
                        held.add(NodeAssignment.newBuilder().setNodeId(a.nodeId()).setGpus(gpus).setCpuMilli(a.cpuMilli())
                                .setMemoryMiB(a.memoryMib()).setRank(held.size()).build());
                    }
                    holding.put(job, held);
                    last.put(job, DecisionOutcome.PLACED);
                });
            }
        }
    }

    /** A submit of the job id, journaled at {@code where}. */
    void submitted(final String jobId, final JobRequest request, final JournalRecord where) {
        requests.put(jobId, request);
        submittedAt.put(jobId, where.offset());
    }

    /** One recorded decision, in the order of its entry; {@code engine} is the pool's engine after that entry. */
    void decision(final PlacementDecision d, final PoolEngine engine, final JournalRecord where) {
        final String job = d.getJobId().toString();
        if (d.getOutcome() == DecisionOutcome.REJECTED && "DUPLICATE_JOB".equals(d.getReasonCode())) {
            last.putIfAbsent(job, DecisionOutcome.REJECTED); // the id's job finished before the audit began
            return; // about a second submit of the id, not about the job that holds it
        }
        final DecisionOutcome prev = last.get(job);
        // a decision caused by the job's own submit after it ended: its id was free again (its retention passed)
        final boolean anew = Long.valueOf(where.offset()).equals(submittedAt.get(job));
        if ((prev == DecisionOutcome.REJECTED || prev == DecisionOutcome.CANCELLED) && !anew) {
            violate("one-state", where, "job " + job + " got " + d.getOutcome() + " after it was " + prev);
        }
        switch (d.getOutcome()) {
            case PLACED -> placed(job, d, engine, where);
            case EVICTED, RELEASED -> release(job, d, where, true);
            case CANCELLED -> release(job, d, where, false);
            case QUEUED, REJECTED -> {
                if (holding.containsKey(job)) {
                    violate("one-state", where, "job " + job + " is " + d.getOutcome() + " while it holds "
                            + nodes(holding.get(job)));
                }
            }
            default -> violate("one-state", where, "job " + job + " has outcome " + d.getOutcome());
        }
        last.put(job, d.getOutcome());
    }

    private void placed(final String job, final PlacementDecision d, final PoolEngine engine, final JournalRecord where) {
        if (holding.containsKey(job)) {
            violate("one-state", where, "job " + job + " placed again while it holds " + nodes(holding.get(job)));
        }
        final JobRequest r = requests.get(job);
        final List<NodeAssignment> a = d.getAssignments();
        if (r != null) {
            final long distinct = a.stream().map(x -> x.getNodeId().toString()).distinct().count();
            final boolean fraction = r.getGpuMilli() != null && r.getGpuMilli() < FULL_GPU_MILLI;
            final boolean whole = a.size() == r.getNodes() && distinct == r.getNodes()
                    && a.stream().allMatch(x -> x.getGpus().size() == (fraction ? 1 : r.getGpusPerNode()));
            if (!whole) {
                violate("gang-atomic", where, "job " + job + " asked " + r.getNodes() + "x" + r.getGpusPerNode()
                        + " GPUs and got " + nodes(a));
            }
        }
        for (final NodeAssignment n : a) {
            final Optional<NodeView> node = engine == null ? Optional.empty() : engine.node(n.getNodeId().toString());
            if (a.size() > 1 && node.isPresent() && !node.get().multiNodeEligible()) {
                // a gang spans the fabric: a node whose links are down or flapping cannot take part
                violate("healthy-capacity", where, "gang " + job + " placed on " + n.getNodeId()
                        + " whose fabric links were unhealthy: " + node.get().badLinks());
            }
            for (final GpuAssignment g : n.getGpus()) {
                final String key = key(n, g);
                final int now = used.merge(key, g.getMilli(), Integer::sum);
                if (now > FULL_GPU_MILLI) {
                    violate("no-over-allocation", where, "GPU " + key + " has " + now + " milli-GPU allocated after "
                            + job + " was placed");
                }
                if (engine != null) {
                    final GpuView gpu = node.flatMap(v -> v.gpus().stream().filter(x -> x.index() == g.getIndex())
                            .findFirst()).orElse(null);
                    if (gpu == null || !gpu.healthy()) {
                        violate("healthy-capacity", where, "job " + job + " placed on " + key + " which was "
                                + (gpu == null ? "not in the pool" : "unhealthy: " + gpu.health()));
                    }
                }
            }
        }
        holding.put(job, a);
    }

    private void release(final String job, final PlacementDecision d, final JournalRecord where, final boolean mustHold) {
        final List<NodeAssignment> held = holding.remove(job);
        if (held == null) {
            if (mustHold || !d.getAssignments().isEmpty()) {
                violate("one-state", where, "job " + job + " " + d.getOutcome() + " but it held nothing");
            }
            return;
        }
        if (!nodes(held).equals(nodes(d.getAssignments())) && !d.getAssignments().isEmpty()) {
            violate("gang-atomic", where, "job " + job + " held " + nodes(held) + " but " + d.getOutcome() + " freed "
                    + nodes(d.getAssignments()));
        }
        for (final NodeAssignment n : held) {
            for (final GpuAssignment g : n.getGpus()) {
                used.merge(key(n, g), -g.getMilli(), Integer::sum);
            }
        }
    }

    /** At the end: every submitted job has been decided about, and holds resources exactly when the engine says so. */
    void finish(final Map<String, PoolEngine> engines, final Map<String, String> poolOfJob) {
        for (final Map.Entry<String, JobRequest> e : requests.entrySet()) {
            final String job = e.getKey();
            if (!last.containsKey(job)) {
                violate("one-state", "end of history", "job " + job + " was submitted and never decided about");
                continue;
            }
            final PoolEngine engine = engines.get(poolOfJob.get(job));
            if (engine == null) {
                continue;
            }
            final boolean engineHolds = engine.job(job).map(v -> v.state().holdsResources()).orElse(false);
            if (engineHolds != holding.containsKey(job)) {
                violate("one-state", "end of history", "job " + job + (engineHolds ? " holds" : " holds nothing")
                        + " in the engine but the recorded decisions say the opposite");
            }
        }
    }

    private static String key(final NodeAssignment n, final GpuAssignment g) {
        return n.getNodeId() + "/" + g.getIndex();
    }

    private static String nodes(final List<NodeAssignment> a) {
        final StringBuilder sb = new StringBuilder("[");
        for (final NodeAssignment n : a) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(n.getNodeId()).append(" gpus ");
            sb.append(n.getGpus().stream().map(g -> g.getIndex() + (g.getMilli() < FULL_GPU_MILLI ? ":" + g.getMilli() : ""))
                    .toList());
        }
        return sb.append(']').toString();
    }

    private void violate(final String invariant, final JournalRecord where, final String detail) {
        violate(invariant, where == null ? "?" : "journal " + where.partition() + "@" + where.offset(), detail);
    }

    private void violate(final String invariant, final String where, final String detail) {
        count++;
        if (violations.size() < keep) {
            violations.add(new Violation(invariant, where, detail));
        }
    }

    int count() {
        return count;
    }

    List<Violation> violations() {
        return List.copyOf(violations);
    }
}
