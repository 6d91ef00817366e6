package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A node as the inventory describes it. All GPUs of a node have one model (mixed nodes are
 * rejected here, so that capacity by model stays exact).
 *
 * @param nodeId    unique in the pool
 * @param leaf      the leaf switch its fabric ports hang off ({@link #DEFAULT_LEAF} when unknown)
 * @param spine     the spine above that leaf ({@link #DEFAULT_SPINE} when unknown)
 * @param cpuMilli  allocatable CPU in milli-cores
 * @param memoryMib allocatable memory in MiB
 * @param gpus      the GPUs in index order
 * @param hcas      the RDMA adapters (may be empty)
 */
public record NodeSpec(String nodeId, String leaf, String spine, long cpuMilli, long memoryMib,
                       List<GpuSpec> gpus, List<HcaSpec> hcas) {

    public static final String DEFAULT_LEAF = "leaf-default";
    public static final String DEFAULT_SPINE = "spine-default";
    /** Enough for any node we know of; keeps per-node arrays and index buckets small. */
    public static final int MAX_GPUS_PER_NODE = 64;

    public NodeSpec {
        Objects.requireNonNull(nodeId, "nodeId");
        if (nodeId.isBlank()) {
            throw new IllegalArgumentException("node id is blank");
        }
        leaf = leaf == null || leaf.isBlank() ? DEFAULT_LEAF : leaf;
        spine = spine == null || spine.isBlank() ? DEFAULT_SPINE : spine;
        if (cpuMilli < 0 || memoryMib < 0) {
            throw new IllegalArgumentException("node " + nodeId + ": negative cpu or memory");
        }
        gpus = List.copyOf(gpus);
        hcas = List.copyOf(hcas);
        if (gpus.size() > MAX_GPUS_PER_NODE) {
            throw new IllegalArgumentException("node " + nodeId + " has " + gpus.size()
                    + " GPUs; at most " + MAX_GPUS_PER_NODE + " are supported");
        }
        for (final GpuSpec g : gpus) {
            if (!g.model().equals(gpus.get(0).model())) {
                throw new IllegalArgumentException("node " + nodeId + " mixes GPU models "
                        + gpus.get(0).model() + " and " + g.model() + "; split it into one node per model");
            }
        }
    }

    /**
     * A node as cluster traces describe it (Alibaba: CPU, memory, GPU count and model; no fabric):
     * default leaf and spine, all GPUs in one group, GPU memory unknown.
     */
    public static NodeSpec simple(final String nodeId, final long cpuMilli, final long memoryMib,
                                  final int gpuCount, final String model) {
        final List<GpuSpec> gpus = new ArrayList<>(gpuCount);
        for (int i = 0; i < gpuCount; i++) {
            gpus.add(new GpuSpec(nodeId + "/gpu" + i, model, 0, 0, -1));
        }
        return new NodeSpec(nodeId, DEFAULT_LEAF, DEFAULT_SPINE, cpuMilli, memoryMib, gpus, List.of());
    }

    /** The node's GPU model, or null for a CPU-only node. */
    public String gpuModel() {
        return gpus.isEmpty() ? null : gpus.get(0).model();
    }

    public boolean hasInfiniband() {
        return hcas.stream().anyMatch(h -> h.linkLayer() == HcaLinkLayer.INFINIBAND);
    }

    public boolean hasRoce() {
        return hcas.stream().anyMatch(h -> h.linkLayer() == HcaLinkLayer.ETHERNET);
    }
}
