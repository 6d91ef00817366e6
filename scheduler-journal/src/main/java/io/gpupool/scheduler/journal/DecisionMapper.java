package io.gpupool.scheduler.journal;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.Evidence;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.Decision;
import io.gpupool.scheduler.core.DecisionKind;
import io.gpupool.scheduler.core.EngineOutput;
import io.gpupool.scheduler.core.InstructionKind;
import io.gpupool.scheduler.core.NodeInstruction;
import io.gpupool.scheduler.core.PlacementPart;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The engine's decisions and node commands as wire records. A pure function of the engine output,
 * the engine's node descriptions, the job book and the journal position, so a replay of the journal
 * yields the same bytes. The engine scores placements lower-is-better; the wire says higher is
 * better, so the score is negated.
 */
final class DecisionMapper {
    private DecisionMapper() {
    }

    static Applied map(final String pool, final EngineOutput out, final PoolEngine engine, final GpuUuids uuids,
                       final JobBook book, final JournalPosition cause, final String submittedJob) {
        final List<PlacementDecision> decisions = new ArrayList<>(out.decisions().size());
        for (final Decision d : out.decisions()) {
            decisions.add(decision(pool, d, out, engine, uuids, cause));
        }
        final List<NodeCommand> commands = new ArrayList<>(out.commands().size());
        for (final NodeInstruction c : out.commands()) {
            final Decision d = out.decisions().stream().filter(x -> x.decisionId().equals(c.decisionId()))
                    .findFirst().orElse(null);
            commands.add(command(pool, c, d, engine, uuids, book, cause));
        }
        return new Applied(decisions, commands, submittedJob, out.eventNote());
    }

    static PlacementDecision decision(final String pool, final Decision d, final EngineOutput out,
                                      final PoolEngine engine, final GpuUuids uuids, final JournalPosition cause) {
        final List<Evidence> evidence = new ArrayList<>();
        // sorted by subject: the engine may build evidence with Map.of, whose iteration order differs
        // between JVM runs, and a replay must give the same bytes in any JVM
        for (final Map.Entry<String, String> e : new TreeMap<>(d.reason().evidence()).entrySet()) {
            evidence.add(new Evidence(e.getKey(), e.getValue()));
        }
        final List<NodeAssignment> assignments = new ArrayList<>();
        for (int rank = 0; rank < d.placement().size(); rank++) {
            assignments.add(assignment(d.placement().get(rank), rank, engine, uuids));
        }
        final List<String> victims = new ArrayList<>();
        if (d.kind() == DecisionKind.PLACED) {
            for (final Decision other : out.decisions()) {
                if (other.kind() == DecisionKind.EVICTED && other.causedBy().equals(d.jobId())) {
                    victims.add(other.jobId());
                }
            }
        }
        return PlacementDecision.newBuilder()
                .setDecisionId(d.decisionId())
                .setJobId(d.jobId())
                .setPool(pool)
                .setOutcome(outcome(d.kind()))
                .setReasonCode(d.reason().code().name())
                .setMessage(d.reason().message())
                .setEvidence(evidence)
                .setAssignments(assignments)
                .setScore(d.kind() == DecisionKind.PLACED ? -d.score() : null)
                .setPreemptedBy(d.kind() == DecisionKind.EVICTED && !d.causedBy().isEmpty() ? d.causedBy() : null)
                .setVictims(victims)
                .setQueuePosition(null)
                .setPolicy(d.policy())
                .setCause(copy(cause))
                .build();
    }

    private static NodeAssignment assignment(final PlacementPart a, final int rank,
                                                             final PoolEngine engine, final GpuUuids uuids) {
        final GpuUuids.NodeInfo info = uuids.of(engine, a.nodeId());
        final List<GpuAssignment> gpus = new ArrayList<>(a.gpus().size());
        for (final int g : a.gpus()) {
            final String uuid = info != null && g < info.uuids().size() ? info.uuids().get(g) : a.nodeId() + "/gpu" + g;
            gpus.add(new GpuAssignment(uuid, g, a.gpuMilli()));
        }
        return NodeAssignment.newBuilder()
                .setNodeId(a.nodeId())
                .setLeaf(info == null ? null : info.leaf())
                .setSpine(info == null ? null : info.spine())
                .setGpus(gpus)
                .setCpuMilli(a.cpuMilli())
                .setMemoryMiB(a.memoryMib())
                .setRank(rank)
                .build();
    }

    private static NodeCommand command(final String pool, final NodeInstruction c, final Decision d,
                                                       final PoolEngine engine, final GpuUuids uuids,
                                                       final JobBook book, final JournalPosition cause) {
        final List<String> gang = new ArrayList<>();
        int rank = 0;
        if (d != null) {
            for (final PlacementPart a : d.placement()) {
                if (a.nodeId().equals(c.nodeId())) {
                    rank = gang.size();
                }
                gang.add(a.nodeId());
            }
        }
        final NodeAssignment a = assignment(c.assignment(), rank, engine, uuids);
        final JobRecord known = book.get(c.jobId());
        // a slim record (from a snapshot) has no request; only jobs that are no longer live have one
        final JobRecord job = known == null || known.request() == null ? null : known;
        final Long estimate = job == null || job.request().getRuntimeEstimateMillis() == null
                ? engine.job(c.jobId()).map(v -> v.runtimeEstimateMs()).orElse(null)
                : job.request().getRuntimeEstimateMillis();
        return NodeCommand.newBuilder()
                .setCommandId(c.decisionId() + "/" + c.nodeId())
                .setDecisionId(c.decisionId())
                .setPlacementId(c.placementId())
                .setType(type(c.kind()))
                .setNodeId(c.nodeId())
                .setJobId(c.jobId())
                .setJobName(job == null ? null : job.request().getName())
                .setTenant(job == null ? null : job.request().getTenant())
                .setPool(pool)
                .setGpus(a.getGpus())
                .setCpuMilli(a.getCpuMilli())
                .setMemoryMiB(a.getMemoryMiB())
                .setGangNodes(gang)
                .setRank(rank)
                .setExec(job == null ? null : job.request().getExec())
                .setRuntimeEstimateMillis(estimate)
                // What a simulated sink runs (a trace's real duration), which the engine never sees.
                .setSimulatedRuntimeMillis(job == null || job.request().getSimulatedRuntimeMillis() == null ? estimate
                        : job.request().getSimulatedRuntimeMillis())
                .setReason(d == null || c.kind() == InstructionKind.ALLOCATE ? null
                        : d.reason().message())
                .setCause(copy(cause))
                .build();
    }

    // Spelled out, not mapped by name: a renamed or added constant on either side is a compile error here.
    private static DecisionOutcome outcome(final DecisionKind kind) {
        return switch (kind) {
            case PLACED -> DecisionOutcome.PLACED;
            case QUEUED -> DecisionOutcome.QUEUED;
            case REJECTED -> DecisionOutcome.REJECTED;
            case EVICTED -> DecisionOutcome.EVICTED;
            case CANCELLED -> DecisionOutcome.CANCELLED;
            case RELEASED -> DecisionOutcome.RELEASED;
        };
    }

    private static NodeCommandType type(final InstructionKind kind) {
        return switch (kind) {
            case ALLOCATE -> NodeCommandType.ALLOCATE;
            case RELEASE -> NodeCommandType.RELEASE;
            case EVICT -> NodeCommandType.EVICT;
        };
    }

    static PlacementDecision rejection(final String pool, final String jobId, final String code, final String message,
                                       final JournalPosition cause) {
        return PlacementDecision.newBuilder()
                .setDecisionId(pool + "-j" + cause.getPartition() + "-" + cause.getOffset())
                .setJobId(jobId == null ? "" : jobId)
                .setPool(pool)
                .setOutcome(DecisionOutcome.REJECTED)
                .setReasonCode(code)
                .setMessage(message)
                .setPolicy("sequencer-validation")
                .setCause(copy(cause))
                .build();
    }

    private static JournalPosition copy(final JournalPosition p) {
        return new JournalPosition(p.getPartition(), p.getOffset(), p.getTimestamp());
    }
}
