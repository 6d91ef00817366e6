package io.gpupool.collector.nvidiasmi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The connection matrix of {@code nvidia-smi topo -m}, and what a scheduler wants from it: which
 * GPUs share an NVLink domain, which GPUs and NICs sit under one PCIe switch, and which NIC is
 * nearest each GPU.
 *
 * @param devices    matrix labels in order (GPU0.., NIC0.. or mlx5_0..)
 * @param links      links.get(a).get(b) = the cell ("X", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS")
 * @param nicNames   NIC label to device name from the NIC legend (NIC0 -> mlx5_0)
 * @param cpuAffinity per GPU label, the CPU list ("0-55,112-167"), null when not given
 * @param numaNode   per GPU label, the NUMA node, null when N/A
 */
public record TopoMatrix(List<String> devices, Map<String, Map<String, String>> links,
        Map<String, String> nicNames, Map<String, String> cpuAffinity, Map<String, Integer> numaNode) {

    /** Best first: the order in which nvidia-smi's legend ranks a PCIe path. */
    private static final List<String> PCIE_RANK = List.of("PIX", "PXB", "PHB", "NODE", "SYS");

    public List<String> gpus() {
        return devices.stream().filter(TopoMatrix::isGpu).toList();
    }

    public List<String> nics() {
        return devices.stream().filter(d -> !isGpu(d)).toList();
    }

    /** The NIC's device name (mlx5_0) whether the matrix used NIC# labels or device names. */
    public String nicName(final String label) {
        return nicNames.getOrDefault(label, label);
    }

    public String link(final String a, final String b) {
        return links.getOrDefault(a, Map.of()).get(b);
    }

    /** GPU label to NVLink group (named after its lowest GPU); GPUs without NVLink peers are absent. */
    public Map<String, String> nvlinkGroups() {
        return components(gpus(), cell -> cell.startsWith("NV"), "nvlink-");
    }

    /**
     * Device label to PCIe switch group: devices joined by PIX or PXB (no host bridge crossed)
     * share a switch. NIC members use their device names in the group's name-giving order.
     */
    public Map<String, String> pcieSwitchGroups() {
        return components(devices, cell -> cell.equals("PIX") || cell.equals("PXB"), "pcie-");
    }

    /** GPU label to the NIC device names with the best PCIe path to it (ties all listed). */
    public Map<String, List<String>> nearestNics() {
        final Map<String, List<String>> nearest = new LinkedHashMap<>();
        for (final String gpu : gpus()) {
            int best = Integer.MAX_VALUE;
            final List<String> names = new ArrayList<>();
            for (final String nic : nics()) {
                final int rank = PCIE_RANK.indexOf(String.valueOf(link(gpu, nic)));
                if (rank < 0) {
                    continue;
                }
                if (rank < best) {
                    best = rank;
                    names.clear();
                }
                if (rank == best) {
                    names.add(nicName(nic));
                }
            }
            if (!names.isEmpty()) {
                nearest.put(gpu, List.copyOf(names));
            }
        }
        return nearest;
    }

    /** GPU index from a label such as GPU3. */
    public static int gpuIndex(final String label) {
        return Integer.parseInt(label.substring(3));
    }

    static boolean isGpu(final String label) {
        return label.matches("GPU\\d+");
    }

    private Map<String, String> components(final List<String> members,
            final Predicate<String> joins, final String prefix) {
        final Map<String, String> group = new LinkedHashMap<>();
        final Set<String> seen = new TreeSet<>();
        for (final String start : members) {
            if (seen.contains(start)) {
                continue;
            }
            final List<String> component = new ArrayList<>();
            final List<String> todo = new ArrayList<>(List.of(start));
            seen.add(start);
            while (!todo.isEmpty()) {
                final String at = todo.remove(todo.size() - 1);
                component.add(at);
                for (final String other : members) {
                    final String cell = link(at, other);
                    if (!seen.contains(other) && cell != null && joins.test(cell)) {
                        seen.add(other);
                        todo.add(other);
                    }
                }
            }
            if (component.size() > 1) {
                final String name = prefix + (isGpu(start) ? start : nicName(start));
                component.forEach(member -> group.put(member, name));
            }
        }
        return group;
    }
}
