package io.gpupool.collector.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Faults injected into the simulated fleet: an Xid on a GPU (reported once, in the next sample),
 * an overheating GPU, a link down, a flapping link (down every other tick), a node gone silent
 * (publishes nothing). All but the Xid last until {@link #clear} is called. Thread-safe: tests and
 * e2e runs inject while the fleet ticks.
 */
public final class FleetFaults {
    private final Map<String, List<Integer>> pendingXids = new HashMap<>();
    private final Map<String, Double> overheated = new HashMap<>();
    private final Set<String> linksDown = new HashSet<>();
    private final Set<String> linksFlapping = new HashSet<>();
    private final Set<String> silentNodes = new HashSet<>();

    /** The GPU (node, index) reports Xid {@code code} in its next sample. */
    public synchronized void xid(final String node, final int gpuIndex, final int code) {
        pendingXids.computeIfAbsent(gpuKey(node, gpuIndex), k -> new ArrayList<>()).add(code);
    }

    /** The GPU reads {@code temperatureC} until cleared. */
    public synchronized void overheat(final String node, final int gpuIndex, final double temperatureC) {
        overheated.put(gpuKey(node, gpuIndex), temperatureC);
    }

    public synchronized void linkDown(final String node, final String hca) {
        linksDown.add(linkKey(node, hca));
    }

    /** The link goes down and up again on alternate ticks, counting a link_downed each time. */
    public synchronized void linkFlapping(final String node, final String hca) {
        linksFlapping.add(linkKey(node, hca));
    }

    /** The node stops publishing anything (a dead collector or host) until cleared. */
    public synchronized void silence(final String node) {
        silentNodes.add(node);
    }

    /** Ends every fault of a node. */
    public synchronized void clear(final String node) {
        final String prefix = node + "/";
        pendingXids.keySet().removeIf(k -> k.startsWith(prefix));
        overheated.keySet().removeIf(k -> k.startsWith(prefix));
        linksDown.removeIf(k -> k.startsWith(prefix));
        linksFlapping.removeIf(k -> k.startsWith(prefix));
        silentNodes.remove(node);
    }

    synchronized List<Integer> takeXids(final String node, final int gpuIndex) {
        final List<Integer> codes = pendingXids.remove(gpuKey(node, gpuIndex));
        return codes == null ? List.of() : codes;
    }

    synchronized Double overheatedTo(final String node, final int gpuIndex) {
        return overheated.get(gpuKey(node, gpuIndex));
    }

    synchronized boolean isDown(final String node, final String hca) {
        return linksDown.contains(linkKey(node, hca));
    }

    synchronized boolean isFlapping(final String node, final String hca) {
        return linksFlapping.contains(linkKey(node, hca));
    }

    public synchronized boolean isSilent(final String node) {
        return silentNodes.contains(node);
    }

    private static String gpuKey(final String node, final int index) {
        return node + "/gpu" + index;
    }

    private static String linkKey(final String node, final String hca) {
        return node + "/" + hca;
    }
}
