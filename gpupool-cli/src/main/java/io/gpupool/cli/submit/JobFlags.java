package io.gpupool.cli.submit;

import io.gpupool.avro.ExecSpec;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.NetworkRequirement;
import io.gpupool.avro.TopologyMode;
import io.gpupool.avro.TopologyScope;
import io.gpupool.cli.config.DurationConverter;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * One flag per field of the Avro JobRequest (and its ExecSpec). A flag that is not given leaves the
 * field as the -f file set it (or the schema default), so flags override a file field by field.
 */
public final class JobFlags {

    @Option(names = "--name", paramLabel = "NAME", description = "Job name (default: the job id).")
    String name;

    @Option(names = "--tenant", paramLabel = "TENANT", description = "Tenant that owns the job (default: your user name).")
    String tenant;

    @Option(names = "--queue", paramLabel = "QUEUE", description = "Queue inside the tenant (default: the tenant's default).")
    String queue;

    @Option(names = "--label", paramLabel = "KEY=VALUE", description = "Label carried to decisions and events; repeatable.")
    Map<String, String> labels;

    @Option(names = "--pool", paramLabel = "POOL", description = "Pool to run in (default: default).")
    String pool;

    @Option(names = "--priority-class", paramLabel = "CLASS", description = "production, batch (default) or best-effort.")
    String priorityClass;

    @Option(names = "--priority", paramLabel = "N", description = "Numeric priority; higher runs first (default 0).")
    Integer priority;

    @Option(names = "--preemptible", arity = "0..1", paramLabel = "BOOL",
            description = "May be evicted for higher-priority work (default false).")
    Boolean preemptible;

    @Option(names = "--nodes", paramLabel = "N", description = "Nodes of the gang (default 1).")
    Integer nodes;

    @Option(names = {"--gpus", "--gpus-per-node"}, paramLabel = "N", description = "Whole GPUs per node.")
    Integer gpusPerNode;

    @Option(names = "--gpu-milli", paramLabel = "MILLI",
            description = "A share of one GPU in thousandths, 1-999 (e.g. 250 = a quarter); instead of --gpus.")
    Integer gpuMilli;

    @Option(names = "--gpu-memory-mib", paramLabel = "MIB", description = "Minimum memory per GPU (for a share: on the shared GPU).")
    Long gpuMemoryMiB;

    @Option(names = "--cpu-milli", paramLabel = "MILLI", description = "CPU per node in millicores (e.g. 8000 = 8 cores).")
    Long cpuMilliPerNode;

    @Option(names = "--memory-mib", paramLabel = "MIB", description = "Host memory per node in MiB.")
    Long memoryMiBPerNode;

    @Option(names = "--gpu-model", paramLabel = "MODEL", split = ",",
            description = "Allowed GPU model: the full name ('NVIDIA H100 80GB HBM3') or a short alias (H100, A100-80GB) "
                    + "matched against the pool's models; repeatable or comma-separated.")
    List<String> gpuModels;

    @Option(names = "--network", paramLabel = "NET", description = "Fabric between the gang's nodes: any (default), infiniband, roce.")
    String network;

    @Option(names = "--topology", paramLabel = "SCOPE", description = "none (default), same-node, same-leaf or same-spine.")
    String topology;

    @Option(names = "--topology-mode", paramLabel = "MODE", description = "preferred (default) or required.")
    String topologyMode;

    @Option(names = "--deadline", paramLabel = "TIME",
            description = "Start (or, with a runtime estimate, finish) by: an ISO instant (2026-12-01T18:00:00Z) or a time from now (+2h).")
    String deadline;

    @Option(names = "--reject-if-late", arity = "0..1", paramLabel = "BOOL",
            description = "Reject the job rather than run it after its deadline.")
    Boolean rejectIfDeadlineMissed;

    @Option(names = "--runtime-estimate", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Expected runtime for backfill, e.g. 90m (default: learned from finished jobs).")
    Duration runtimeEstimate;

    @Option(names = "--simulated-runtime", paramLabel = "TIME", converter = DurationConverter.class,
            description = "How long a simulated sink runs the job (default: the estimate, else the sink's default).")
    Duration simulatedRuntime;

    @Option(names = "--env", paramLabel = "NAME=VALUE", description = "exec: environment variable for the job; repeatable.")
    Map<String, String> env;

    @Option(names = "--workdir", paramLabel = "DIR", description = "exec: working directory.")
    String workingDir;

    @Option(names = "--grace", paramLabel = "TIME", converter = DurationConverter.class,
            description = "exec: time between SIGTERM and SIGKILL on evict or cancel (default: the sink's).")
    Duration grace;

    @Option(names = "--arg", paramLabel = "ARG", description = "exec: argument appended after the command; repeatable.")
    List<String> args;

    @Parameters(paramLabel = "COMMAND", arity = "0..*",
            description = "exec: the program and its arguments, after `--` (e.g. -- python train.py --epochs 3).")
    List<String> command;

    /** Sets every field that was given on the command line. */
    void applyTo(final JobRequest.Builder b, final Instant now) {
        if (name != null) {
            b.setName(name);
        }
        if (tenant != null) {
            b.setTenant(tenant);
        }
        if (queue != null) {
            b.setQueue(queue);
        }
        if (labels != null) {
            final Map<String, String> merged = new LinkedHashMap<>(b.hasLabels() ? b.getLabels() : Map.of());
            merged.putAll(labels);
            b.setLabels(merged);
        }
        if (pool != null) {
            b.setPool(pool);
        }
        if (priorityClass != null) {
            b.setPriorityClass(priorityClass);
        }
        if (priority != null) {
            b.setPriority(priority);
        }
        if (preemptible != null) {
            b.setPreemptible(preemptible);
        }
        if (nodes != null) {
            b.setNodes(nodes);
        }
        if (gpusPerNode != null) {
            b.setGpusPerNode(gpusPerNode);
        }
        if (gpuMilli != null) {
            b.setGpuMilli(gpuMilli);
        }
        if (gpuMemoryMiB != null) {
            b.setGpuMemoryMiB(gpuMemoryMiB);
        }
        if (cpuMilliPerNode != null) {
            b.setCpuMilliPerNode(cpuMilliPerNode);
        }
        if (memoryMiBPerNode != null) {
            b.setMemoryMiBPerNode(memoryMiBPerNode);
        }
        if (gpuModels != null) {
            b.setGpuModels(gpuModels.stream().map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toList()));
        }
        if (network != null) {
            b.setNetwork(network(network));
        }
        if (topology != null) {
            b.setTopology(topology(topology));
        }
        if (topologyMode != null) {
            b.setTopologyMode(topologyMode(topologyMode));
        }
        if (deadline != null) {
            b.setDeadline(deadline(deadline, now));
        }
        if (rejectIfDeadlineMissed != null) {
            b.setRejectIfDeadlineMissed(rejectIfDeadlineMissed);
        }
        if (runtimeEstimate != null) {
            b.setRuntimeEstimateMillis(runtimeEstimate.toMillis());
        }
        if (simulatedRuntime != null) {
            b.setSimulatedRuntimeMillis(simulatedRuntime.toMillis());
        }
        applyExec(b);
    }

    private void applyExec(final JobRequest.Builder b) {
        if (env == null && workingDir == null && grace == null && args == null && (command == null || command.isEmpty())) {
            return;
        }
        final ExecSpec.Builder e = b.getExec() != null ? ExecSpec.newBuilder(b.getExec()) : ExecSpec.newBuilder();
        if (command != null && !command.isEmpty()) {
            e.setCommand(new ArrayList<>(command));
        }
        if (args != null) {
            e.setArgs(new ArrayList<>(args));
        }
        if (env != null) {
            final Map<String, String> merged = new LinkedHashMap<>(e.hasEnv() ? e.getEnv() : Map.of());
            merged.putAll(env);
            e.setEnv(merged);
        }
        if (workingDir != null) {
            e.setWorkingDir(workingDir);
        }
        if (grace != null) {
            e.setGracePeriodMillis(grace.toMillis());
        }
        b.setExec(e.build());
    }

    static NetworkRequirement network(final String text) {
        return enumValue(NetworkRequirement.class, text, "network", "any, infiniband, roce");
    }

    static TopologyScope topology(final String text) {
        return enumValue(TopologyScope.class, text, "topology", "none, same-node, same-leaf, same-spine");
    }

    static TopologyMode topologyMode(final String text) {
        return enumValue(TopologyMode.class, text, "topology mode", "preferred, required");
    }

    private static <E extends Enum<E>> E enumValue(final Class<E> type, final String text, final String what, final String allowed) {
        final String key = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        if (!key.equals("UNKNOWN")) {
            for (final E e : type.getEnumConstants()) {
                if (e.name().equals(key)) {
                    return e;
                }
            }
        }
        throw new IllegalArgumentException(what + " '" + text + "' is unknown; use one of " + allowed);
    }

    static Instant deadline(final String text, final Instant now) {
        final String t = text.trim();
        if (t.startsWith("+")) {
            try {
                return now.plus(DurationConverter.parse(t.substring(1)));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("--deadline " + text + ": after + give a duration such as +30m or +2h");
            }
        }
        try {
            return Instant.parse(t);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("--deadline " + text + " is neither an ISO instant (2026-12-01T18:00:00Z) "
                    + "nor a time from now (+2h)");
        }
    }
}
