package io.gpupool.collector.sim;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * One node of the synthetic fleet: fixed identity and placement, plus the few counters that must
 * keep growing between ticks (link_downed, xmit_wait and CNPs of each port).
 */
final class SimulatedNode {
    final String id;
    final String leaf;
    final String spine;
    final boolean roce;
    final GpuModel model;
    final List<String> gpuUuids;
    final List<String> hcas;
    final long[] linkDowned;
    final boolean[] wasDown;
    final long[] xmitWait;
    final long[] cnps;

    SimulatedNode(final String id, final String leaf, final String spine, final boolean roce, final GpuModel model,
            final int gpus, final int hcaCount, final long seed) {
        this.id = id;
        this.leaf = leaf;
        this.spine = spine;
        this.roce = roce;
        this.model = model;
        final String[] uuids = new String[gpus];
        for (int i = 0; i < gpus; i++) {
            // Stable per (seed, node, index): the same fleet spec always names its GPUs alike.
            uuids[i] = "GPU-" + UUID.nameUUIDFromBytes((seed + "/" + id + "/" + i).getBytes(StandardCharsets.UTF_8));
        }
        this.gpuUuids = List.of(uuids);
        final String[] names = new String[hcaCount];
        for (int i = 0; i < hcaCount; i++) {
            names[i] = "mlx5_" + i;
        }
        this.hcas = List.of(names);
        this.linkDowned = new long[hcaCount];
        this.wasDown = new boolean[hcaCount];
        this.xmitWait = new long[hcaCount];
        this.cnps = new long[hcaCount];
    }
}
