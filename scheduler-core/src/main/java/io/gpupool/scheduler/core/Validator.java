package io.gpupool.scheduler.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Rejects requests that can never fit this pool, with the reason. */
final class Validator {
    private final PoolState st;
    private final ModelStats stats;
    private final PlacementSearch placer;

    Validator(final PoolState st, final ModelStats stats, final PlacementSearch placer) {
        this.st = st;
        this.stats = stats;
        this.placer = placer;
    }

    /** Null when the job could fit some day; else why it never can. */
    Reason neverFits(final JobSpec j) {
        final String invalid = invalid(j);
        if (invalid != null) {
            return Reason.of(ReasonCode.INVALID_REQUEST, invalid);
        }
        if (st.nodesById.isEmpty()) {
            return null; // inventory may still arrive: wait, do not judge
        }
        final int[] models = placer.models(j);
        if (models.length == 0) {
            return j.allowedModels().isEmpty()
                    ? Reason.of(ReasonCode.UNKNOWN_MODEL, "the pool has no GPU nodes")
                    : new Reason(ReasonCode.UNKNOWN_MODEL, "no node in the pool has GPU model "
                    + String.join(" or ", j.allowedModels()), Map.of("known_models", String.join(",", knownModels())));
        }
        final ModelStats s = stats.current(st);
        final int k = Math.max(j.gpusPerNode(), 0);
        long mostGpus = 0;
        int mostNodes = 0;
        boolean cpuMemOk = false;
        boolean gpuMemOk = !j.isShare() || j.gpuMemoryMib() <= 0;
        for (final int m : models) {
            mostGpus = Math.max(mostGpus, s.totalGpus[m]);
            if (k <= NodeSpec.MAX_GPUS_PER_NODE) {
                mostNodes = Math.max(mostNodes, s.nodesWithAtLeast[m][k]);
            }
            cpuMemOk |= s.maxCpu[m] >= j.cpuMilliPerNode() && s.maxMem[m] >= j.memoryMibPerNode();
            gpuMemOk |= s.maxGpuMem[m] == 0 || s.maxGpuMem[m] >= j.gpuMemoryMib();
        }
        final Map<String, String> ev = new LinkedHashMap<>();
        ev.put("pool_gpus_of_allowed_models", Long.toString(mostGpus));
        ev.put("nodes_with_" + k + "_gpus", Integer.toString(mostNodes));
        if ((long) j.nodes() * k > mostGpus) {
            return new Reason(ReasonCode.EXCEEDS_POOL_CAPACITY, "needs " + (long) j.nodes() * k
                    + " GPUs of one model; the pool has at most " + mostGpus, ev);
        }
        if (mostNodes == 0) {
            return new Reason(ReasonCode.EXCEEDS_POOL_CAPACITY, "needs " + k
                    + " GPUs on one node; no node of the allowed models has that many", ev);
        }
        if (mostNodes < j.nodes()) {
            return new Reason(ReasonCode.GANG_LARGER_THAN_POOL, "needs " + j.nodes() + " nodes with " + k
                    + " GPUs; the pool has " + mostNodes, ev);
        }
        if (!cpuMemOk) {
            return new Reason(ReasonCode.EXCEEDS_POOL_CAPACITY, "needs " + j.cpuMilliPerNode() + " mCPU and "
                    + j.memoryMibPerNode() + " MiB on one node; no node of the allowed models has that much", ev);
        }
        if (!gpuMemOk) {
            return new Reason(ReasonCode.EXCEEDS_POOL_CAPACITY, "needs " + j.gpuMemoryMib()
                    + " MiB of GPU memory; no GPU of the allowed models has that much", ev);
        }
        return null;
    }

    private List<String> knownModels() {
        return st.models.names().stream().filter(m -> !m.isEmpty()).sorted().toList();
    }

    static String invalid(final JobSpec j) {
        if (j.jobId().isBlank()) {
            return "job id is blank";
        }
        if (j.nodes() < 1) {
            return "nodes must be at least 1, got " + j.nodes();
        }
        if (j.gpusPerNode() < 0 || j.gpusPerNode() > NodeSpec.MAX_GPUS_PER_NODE) {
            return "GPUs per node must be 0.." + NodeSpec.MAX_GPUS_PER_NODE + ", got " + j.gpusPerNode();
        }
        if (j.gpusPerNode() > 0 && (j.gpuMilli() < 1 || j.gpuMilli() > 1000)) {
            return "milli-GPU must be 1..1000, got " + j.gpuMilli();
        }
        if (j.isShare() && (j.gpusPerNode() != 1 || j.nodes() != 1)) {
            return "a GPU share (milli-GPU < 1000) is one GPU on one node; got " + j.nodes() + " x " + j.gpusPerNode();
        }
        if (j.cpuMilliPerNode() < 0 || j.memoryMibPerNode() < 0 || j.gpuMemoryMib() < 0) {
            return "CPU, memory and GPU memory must not be negative";
        }
        if (j.gpusPerNode() == 0 && j.cpuMilliPerNode() == 0 && j.memoryMibPerNode() == 0) {
            return "the job asks for nothing (no GPU, CPU or memory)";
        }
        if (j.runtimeEstimateMs() < 0) {
            return "runtime estimate must not be negative (0: none given), got " + j.runtimeEstimateMs() + " ms";
        }
        if (j.deadlineMs() < 0) {
            return "deadline must not be negative (0: none), got stream time " + j.deadlineMs();
        }
        if (j.nodes() > 1 && j.topology() == GangScope.NODE && j.topologyRequired()) {
            return "a gang of " + j.nodes() + " nodes cannot be required on one node";
        }
        return null;
    }
}
