package io.gpupool.collector.publish;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.NodeInventory;
import io.gpupool.collector.fabric.Attachment;
import io.gpupool.collector.fabric.FabricMap;
import io.gpupool.collector.gpu.GpuReading;
import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.nvidiasmi.TopoMatrix;
import io.gpupool.collector.sysfs.PortReading;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Puts together what a node has and where it sits: GPUs from a snapshot, their NVLink and PCIe
 * placement from {@code topo -m}, fabric ports from sysfs, and leaf/spine/rail from the fabric map.
 * Every part but the node id is optional: a node without topo -m or fabric map still has GPUs.
 */
public final class InventoryAssembler {
    private final String nodeId;
    private final String pool;
    private final String source;

    public InventoryAssembler(final String nodeId, final String pool, final String source) {
        this.nodeId = nodeId;
        this.pool = pool;
        this.source = source;
    }

    public NodeInventory assemble(final GpuSnapshot snapshot, final TopoMatrix topo, final List<PortReading> ports,
            final FabricMap fabric, final Instant observedAt, final Long cpuMilli, final Long memoryMiB,
            final Map<String, String> labels) {
        final Map<String, String> nvlink = topo == null ? Map.of() : topo.nvlinkGroups();
        final Map<String, String> pcie = topo == null ? Map.of() : topo.pcieSwitchGroups();
        final List<GpuInfo> gpus = new ArrayList<>();
        int position = 0;
        for (final GpuReading g : snapshot.gpus()) {
            final int index = g.index() == null ? position : g.index();
            final String label = "GPU" + index;
            gpus.add(AvroMapping.gpuInfo(g, position, nvlink.get(label), pcie.get(label),
                    topo == null ? null : topo.numaNode().get(label)));
            position++;
        }
        gpus.sort(Comparator.comparingInt(GpuInfo::getIndex));
        final List<HcaPort> hcas = new ArrayList<>();
        for (final PortReading p : ports) {
            final Attachment a = attachment(fabric, p.hca());
            hcas.add(AvroMapping.hcaPort(p, nicSwitch(topo, pcie, p.hca()),
                    a == null ? null : a.leaf(), a == null ? null : a.spine(), a == null ? null : a.rail()));
        }
        final Attachment primary = fabric == null ? null : fabric.primary(nodeId);
        return NodeInventory.newBuilder()
                .setNodeId(nodeId)
                .setPool(pool)
                .setLeaf(primary == null ? null : primary.leaf())
                .setSpine(primary == null ? null : primary.spine())
                .setRail(primary == null ? null : primary.rail())
                .setObservedAt(observedAt)
                .setSource(source)
                .setGpus(gpus)
                .setCpuMilli(cpuMilli)
                .setMemoryMiB(memoryMiB)
                .setHcas(hcas)
                .setDriverVersion(snapshot.driverVersion())
                .setLabels(Map.copyOf(labels))
                .build();
    }

    private Attachment attachment(final FabricMap fabric, final String hca) {
        if (fabric == null) {
            return null;
        }
        final Attachment exact = fabric.of(nodeId, hca);
        return exact != null ? exact : fabric.primary(nodeId);
    }

    private static String nicSwitch(final TopoMatrix topo, final Map<String, String> pcie, final String hca) {
        if (topo == null) {
            return null;
        }
        for (final String nic : topo.nics()) {
            if (topo.nicName(nic).equals(hca)) {
                return pcie.get(nic);
            }
        }
        return null;
    }
}
