package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Objects;

/**
 * What a job asks for. Numbers are validated by the engine, not here, so that a bad request
 * becomes a REJECTED decision with a reason instead of an exception that loses the input.
 *
 * @param jobId              unique in the pool
 * @param name               job name (with tenant, the key for learned runtime estimates)
 * @param tenant             the queue / tenant it is charged to
 * @param priorityClass      coarse class
 * @param priority           numeric priority inside the class, higher first
 * @param nodes              gang size in nodes (1 for a single-node job)
 * @param gpusPerNode        whole GPUs per node; 1 with {@code gpuMilli < 1000} for a share; 0 for CPU only
 * @param gpuMilli           1000 for whole GPUs, 1..999 for a share of one GPU (milli-GPU)
 * @param gpuMemoryMib       GPU memory a share needs (0: not limited by GPU memory)
 * @param cpuMilliPerNode    CPU per node in milli-cores
 * @param memoryMibPerNode   memory per node in MiB
 * @param allowedModels      allowed GPU models; empty means any
 * @param topology           how close the nodes must or should be
 * @param topologyRequired   true: the scope is a hard constraint; false: a preference
 * @param network            fabric the gang needs
 * @param preemptible        may be evicted for higher-priority work
 * @param deadlineMs         stream time by which it should finish, 0 for none
 * @param rejectIfLate       reject (not just report) when the deadline can no longer be met
 * @param runtimeEstimateMs  the user's runtime estimate, 0 when not given
 * @param placeNowOrReject   place at once or reject, never queue (the FGD simulation protocol)
 */
public record JobSpec(String jobId, String name, String tenant, PriorityClass priorityClass, int priority,
                      int nodes, int gpusPerNode, int gpuMilli, long gpuMemoryMib,
                      long cpuMilliPerNode, long memoryMibPerNode, List<String> allowedModels,
                      GangScope topology, boolean topologyRequired, Network network,
                      boolean preemptible, long deadlineMs, boolean rejectIfLate,
                      long runtimeEstimateMs, boolean placeNowOrReject) {

    public static final int WHOLE_GPU_MILLI = 1000;

    public JobSpec {
        Objects.requireNonNull(jobId, "jobId");
        name = name == null ? "" : name;
        tenant = tenant == null || tenant.isBlank() ? "default" : tenant;
        priorityClass = priorityClass == null ? PriorityClass.BATCH : priorityClass;
        allowedModels = normalisedModels(allowedModels);
        topology = topology == null ? GangScope.LEAF : topology;
        network = network == null ? Network.ANY : network;
    }

    /** Sorted, distinct, no blanks; the common empty case costs nothing (it is on every submission). */
    private static List<String> normalisedModels(final List<String> models) {
        if (models == null || models.isEmpty()) {
            return List.of();
        }
        if (models.size() == 1) {
            return models.get(0).isBlank() ? List.of() : List.of(models.get(0));
        }
        return models.stream().filter(m -> !m.isBlank()).distinct().sorted().toList();
    }

    public boolean isShare() {
        return gpusPerNode > 0 && gpuMilli > 0 && gpuMilli < WHOLE_GPU_MILLI;
    }

    /** GPU demand in milli-GPU over the whole gang. */
    public long totalGpuMilli() {
        return (long) nodes * gpusPerNode * gpuMilli;
    }

    public static Builder builder(final String jobId) {
        return new Builder(jobId);
    }

    /** Convenience builder: defaults are one node, one whole GPU, tenant "default", class BATCH. */
    public static final class Builder {
        private final String jobId;
        private String name = "";
        private String tenant = "default";
        private PriorityClass priorityClass = PriorityClass.BATCH;
        private int priority;
        private int nodes = 1;
        private int gpusPerNode = 1;
        private int gpuMilli = WHOLE_GPU_MILLI;
        private long gpuMemoryMib;
        private long cpuMilliPerNode;
        private long memoryMibPerNode;
        private List<String> allowedModels = List.of();
        private GangScope topology = GangScope.LEAF;
        private boolean topologyRequired = true;
        private Network network = Network.ANY;
        private boolean preemptible;
        private long deadlineMs;
        private boolean rejectIfLate;
        private long runtimeEstimateMs;
        private boolean placeNowOrReject;

        private Builder(final String jobId) {
            this.jobId = jobId;
        }

        public Builder name(final String v) { name = v; return this; }
        public Builder tenant(final String v) { tenant = v; return this; }
        public Builder priorityClass(final PriorityClass v) { priorityClass = v; return this; }
        public Builder priority(final int v) { priority = v; return this; }
        /** A gang of {@code n} nodes with {@code g} whole GPUs each. */
        public Builder gang(final int n, final int g) { nodes = n; gpusPerNode = g; gpuMilli = WHOLE_GPU_MILLI; return this; }
        /** A share of one GPU. */
        public Builder share(final int milli, final long gpuMemMib) {
            nodes = 1; gpusPerNode = 1; gpuMilli = milli; gpuMemoryMib = gpuMemMib; return this;
        }
        public Builder gpuMilli(final int v) { gpuMilli = v; return this; }
        public Builder cpuMilli(final long v) { cpuMilliPerNode = v; return this; }
        public Builder memoryMib(final long v) { memoryMibPerNode = v; return this; }
        public Builder models(final String... v) { allowedModels = List.of(v); return this; }
        public Builder models(final List<String> v) { allowedModels = v; return this; }
        public Builder topology(final GangScope v, final boolean required) { topology = v; topologyRequired = required; return this; }
        public Builder network(final Network v) { network = v; return this; }
        public Builder preemptible(final boolean v) { preemptible = v; return this; }
        public Builder deadline(final long atMs, final boolean rejectWhenLate) { deadlineMs = atMs; rejectIfLate = rejectWhenLate; return this; }
        public Builder runtimeEstimateMs(final long v) { runtimeEstimateMs = v; return this; }
        public Builder placeNowOrReject(final boolean v) { placeNowOrReject = v; return this; }

        public JobSpec build() {
            return new JobSpec(jobId, name, tenant, priorityClass, priority, nodes, gpusPerNode, gpuMilli,
                    gpuMemoryMib, cpuMilliPerNode, memoryMibPerNode, allowedModels, topology, topologyRequired,
                    network, preemptible, deadlineMs, rejectIfLate, runtimeEstimateMs, placeNowOrReject);
        }
    }
}
