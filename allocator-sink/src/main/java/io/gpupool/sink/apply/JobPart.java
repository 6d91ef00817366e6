package io.gpupool.sink.apply;

import io.gpupool.avro.ExecSpec;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.NodeCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One job's share of one node, as an ALLOCATE command describes it: the unit every applier runs.
 * A gang job has one part per node; each node's sink runs only its own.
 *
 * @param placementId the placement the part belongs to: every job event about the part carries it,
 *                    and a stop command naming another placement leaves the part alone
 */
public record JobPart(String jobId, String nodeId, String decisionId, String placementId, String commandId,
                      String jobName, String tenant, List<Integer> gpuIndices, List<String> gpuUuids, int rank,
                      List<String> gangNodes, List<String> command, List<String> args, Map<String, String> env,
                      Optional<String> workingDir, Optional<Long> runtimeMillis) {

    public JobPart {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(decisionId, "decisionId");
        Objects.requireNonNull(placementId, "placementId");
        Objects.requireNonNull(commandId, "commandId");
        gpuIndices = List.copyOf(gpuIndices);
        gpuUuids = List.copyOf(gpuUuids);
        gangNodes = List.copyOf(gangNodes);
        command = List.copyOf(command);
        args = List.copyOf(args);
        env = Map.copyOf(env);
        Objects.requireNonNull(workingDir, "workingDir");
        Objects.requireNonNull(runtimeMillis, "runtimeMillis");
    }

    /** The part an ALLOCATE command asks for. */
    public static JobPart of(final NodeCommand c) {
        final List<Integer> indices = new ArrayList<>();
        final List<String> uuids = new ArrayList<>();
        for (final GpuAssignment g : c.getGpus()) {
            indices.add(g.getIndex());
            uuids.add(g.getUuid());
        }
        final ExecSpec exec = c.getExec();
        return new JobPart(c.getJobId(), c.getNodeId(), c.getDecisionId(), placementOf(c), c.getCommandId(),
                c.getJobName(), c.getTenant(), indices, uuids, c.getRank(), c.getGangNodes(),
                exec == null ? List.of() : exec.getCommand(), exec == null ? List.of() : exec.getArgs(),
                exec == null ? Map.of() : exec.getEnv(),
                Optional.ofNullable(exec == null ? null : exec.getWorkingDir()),
                // A simulated runtime (trace replay) wins over the estimate: the job "runs" as long as it really did.
                Optional.ofNullable(c.getSimulatedRuntimeMillis() != null ? c.getSimulatedRuntimeMillis()
                        : c.getRuntimeEstimateMillis()));
    }

    /**
     * The placement an ALLOCATE creates. A scheduler that predates placement ids sends none; its
     * ALLOCATE's decision id is the same value (the placement is the decision that made it).
     */
    public static String placementOf(final NodeCommand allocate) {
        return allocate.getPlacementId() != null ? allocate.getPlacementId() : allocate.getDecisionId();
    }

    /** The key under which a sink tracks the part: a job runs at most once on a node at a time. */
    public PartKey key() {
        return new PartKey(jobId, nodeId);
    }
}
