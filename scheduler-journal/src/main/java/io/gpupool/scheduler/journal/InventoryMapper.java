package io.gpupool.scheduler.journal;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.NodeInventory;
import io.gpupool.scheduler.core.GpuSpec;
import io.gpupool.scheduler.core.HcaLinkLayer;
import io.gpupool.scheduler.core.HcaSpec;
import io.gpupool.scheduler.core.NodeSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * NodeInventory (the wire record) to the engine's NodeSpec. NVLink groups and PCIe switches are
 * names on the wire and small integers in the engine: they are numbered in order of first
 * appearance on the node, which is deterministic. Throws IllegalArgumentException for an
 * inventory the engine cannot take (mixed GPU models, too many GPUs, blank model).
 */
public final class InventoryMapper {
    private InventoryMapper() {
    }

    public static NodeSpec toNodeSpec(final NodeInventory inv) {
        if (inv.getPool() == null || inv.getPool().isBlank()) {
            throw new IllegalArgumentException("node " + inv.getNodeId() + " names no pool");
        }
        final Map<String, Integer> nvlink = new HashMap<>();
        final Map<String, Integer> pcie = new HashMap<>();
        final List<GpuSpec> gpus = new ArrayList<>(inv.getGpus().size());
        int expectedIndex = 0;
        for (final GpuInfo g : inv.getGpus()) {
            if (g.getIndex() != expectedIndex++) {
                throw new IllegalArgumentException("node " + inv.getNodeId() + ": GPUs must be listed in index order 0.."
                        + (inv.getGpus().size() - 1) + ", found index " + g.getIndex());
            }
            final long mem = g.getMemoryMiB() == null ? 0 : g.getMemoryMiB();
            if (mem < 0 || mem > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("GPU " + g.getUuid() + " memory " + mem + " MiB is out of range");
            }
            gpus.add(new GpuSpec(g.getUuid(), g.getModel(), (int) mem, number(nvlink, g.getNvlinkGroup()),
                    number(pcie, g.getPcieSwitch())));
        }
        final List<HcaSpec> hcas = new ArrayList<>();
        for (final HcaPort h : inv.getHcas()) {
            final HcaLinkLayer layer = switch (h.getLinkLayer()) {
                case INFINIBAND -> HcaLinkLayer.INFINIBAND;
                case ETHERNET -> HcaLinkLayer.ETHERNET;
                default -> null; // a port whose link layer is unknown offers no RDMA fabric the engine can promise
            };
            if (layer != null) {
                hcas.add(new HcaSpec(portName(h.getName(), h.getPort()), layer, rail(h.getRail())));
            }
        }
        final long cpu = inv.getCpuMilli() == null ? 0 : inv.getCpuMilli();
        final long mem = inv.getMemoryMiB() == null ? 0 : inv.getMemoryMiB();
        return new NodeSpec(inv.getNodeId(), inv.getLeaf(), inv.getSpine(), cpu, mem, gpus, hcas);
    }

    /** The engine's name of an HCA port ("mlx5_0:1"), as link facts must name it too. */
    static String portName(final String hca, final int port) {
        return hca + ":" + port;
    }

    private static int number(final Map<String, Integer> names, final String name) {
        if (name == null || name.isBlank()) {
            return -1;
        }
        return names.computeIfAbsent(name, n -> names.size());
    }

    /** Rails are named ("rail3", "3"); the engine wants the number, -1 when there is none. */
    private static int rail(final String rail) {
        if (rail == null) {
            return -1;
        }
        final String digits = rail.replaceAll("[^0-9]", "");
        if (digits.isEmpty() || digits.length() > 6) {
            return -1;
        }
        return Integer.parseInt(digits);
    }
}
