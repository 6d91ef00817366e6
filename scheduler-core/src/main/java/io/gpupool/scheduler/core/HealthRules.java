package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Map;

/**
 * The health rules: which GPUs and links are fit to place on, and which leaves are congested. A GPU
 * health fact takes the GPU out of service for a critical Xid, uncorrectable ECC errors, a failed or
 * pending row remap, or a temperature over the threshold; telemetry silent past the stale timeout
 * takes out all the node's GPUs until it comes back; a fabric link down evicts the node's multi-node
 * jobs; the mean of a leaf's nodes' uplink figures judges the leaf congested. When a GPU or link
 * fails and the pool evicts on failure, the jobs on it are evicted (and requeued).
 */
final class HealthRules {
    private final PoolState st;
    private final EngineConfig cfg;
    private final Allocation allocation;
    private final JobLifecycle jobs;

    HealthRules(final PoolState st, final EngineConfig cfg, final Allocation allocation, final JobLifecycle jobs) {
        this.st = st;
        this.cfg = cfg;
        this.allocation = allocation;
        this.jobs = jobs;
    }

    /** The GPU's health now; true when capacity grew. */
    boolean gpuHealth(final EngineInput.GpuHealthFact f) {
        final NodeState n = nodeWithGpu(f.nodeId(), f.gpu());
        if (n == null) {
            return false;
        }
        n.xid[f.gpu()] = f.xid();
        n.temperatureC[f.gpu()] = f.temperatureC();
        // a health fact is telemetry too: it also clears staleness of the node's other GPUs
        final boolean grew = setHealth(n, f.gpu(), bitsOf(f));
        return heartbeat(f.nodeId(), f.timestampMs()) | grew;
    }

    /** The out-of-service reasons a health fact gives, by the configured rules. */
    private int bitsOf(final EngineInput.GpuHealthFact f) {
        int bits = 0;
        if (f.xid() != 0 && cfg.criticalXids().contains(f.xid())) {
            bits |= GpuHealthState.XID;
        }
        if (f.eccUncorrectable()) {
            bits |= GpuHealthState.ECC;
        }
        if (f.remapFailure()) {
            bits |= GpuHealthState.REMAP_FAILURE;
        }
        if (f.remapPending()) {
            bits |= GpuHealthState.REMAP_PENDING;
        }
        if (f.temperatureC() > cfg.temperatureThresholdC()) {
            bits |= GpuHealthState.OVER_TEMPERATURE;
        }
        return bits;
    }

    /** Changes one GPU's health bits; evicts the jobs on it when it fails. True when capacity grew. */
    private boolean setHealth(final NodeState n, final int gpu, final int bits) {
        final int before = n.healthBits[gpu];
        if (before == bits) {
            return false;
        }
        final int oldFree = n.freeWhole;
        final boolean oldLink = n.linkOk();
        st.impairmentVersion++;
        n.healthBits[gpu] = bits;
        allocation.reindex(n, oldFree, oldLink);
        allocation.refreshSharedRoom(n);
        if (before == 0 && cfg.evictAndRequeueOnFailure()) {
            final String why = "node " + n.id() + " GPU " + gpu + " unhealthy (" + n.describeUnhealthy(gpu) + ")";
            for (final Job j : new ArrayList<>(n.jobs)) {
                if (usesGpu(j, n, gpu)) {
                    jobs.evict(j, new Reason(ReasonCode.HARDWARE_FAILURE, why,
                            Map.of("node", n.id(), "gpu", Integer.toString(gpu))), "", true);
                }
            }
            return true; // eviction freed capacity elsewhere
        }
        return bits == 0;
    }

    private static boolean usesGpu(final Job j, final NodeState n, final int gpu) {
        for (final PlacementPart a : j.placement) {
            if (a.nodeId().equals(n.id()) && a.gpus().contains(gpu)) {
                return true;
            }
        }
        return false;
    }

    boolean gpuUtilisation(final EngineInput.GpuUtilisationFact f) {
        final NodeState n = nodeWithGpu(f.nodeId(), f.gpu());
        if (n == null) {
            return false;
        }
        n.utilisationPct[f.gpu()] = Math.max(0, Math.min(100, f.utilisationPct()));
        return heartbeat(f.nodeId(), f.timestampMs());
    }

    /** The node, when it is in the pool and has that GPU; null otherwise (the fact is ignored). */
    private NodeState nodeWithGpu(final String nodeId, final int gpu) {
        final NodeState n = st.nodesById.get(nodeId);
        return n == null || gpu < 0 || gpu >= n.gpuCount ? null : n;
    }

    /** Fresh telemetry at {@code atMs}: clears staleness on the node's GPUs. True when capacity grew. */
    boolean heartbeat(final String nodeId, final long atMs) {
        final NodeState n = st.nodesById.get(nodeId);
        if (n == null) {
            return false;
        }
        n.lastTelemetryMs = Math.max(n.lastTelemetryMs, atMs);
        boolean grew = false;
        for (int g = 0; g < n.gpuCount; g++) {
            if ((n.healthBits[g] & GpuHealthState.STALE) != 0) {
                grew |= setHealth(n, g, n.healthBits[g] & ~GpuHealthState.STALE);
            }
        }
        if (!n.uplinkCounted && n.uplinkPct >= 0) { // back from stale: its figure counts again
            final boolean hadFigures = st.leafHasUplinks(n.leafIndex);
            st.countUplink(n);
            st.judgeLeaf(n.leafIndex, cfg.leafCongestedPct(), hadFigures);
        }
        return grew;
    }

    /** Marks stale the GPUs of nodes silent past the timeout (their uplink figures stop counting). True when capacity grew. */
    boolean markStale() {
        if (cfg.staleTelemetryTimeoutMs() <= 0) {
            return false; // telemetry is not expected
        }
        boolean grew = false;
        for (final NodeState n : st.slots) {
            if (n != null && StreamTime.minus(st.nowMs, n.lastTelemetryMs) > cfg.staleTelemetryTimeoutMs()) {
                for (int g = 0; g < n.gpuCount; g++) {
                    if ((n.healthBits[g] & GpuHealthState.STALE) == 0) {
                        grew |= setHealth(n, g, n.healthBits[g] | GpuHealthState.STALE);
                    }
                }
                if (n.uplinkCounted && n.telemetryStale()) { // a silent node's last figure is not the uplink now
                    st.uncountUplink(n);
                    st.judgeLeaf(n.leafIndex, cfg.leafCongestedPct(), true);
                }
            }
        }
        return grew;
    }

    /** One fabric port's state now; true when the node's links changed between fit and not. */
    boolean link(final EngineInput.LinkFact f) {
        final NodeState n = st.nodesById.get(f.nodeId());
        if (n == null) {
            return false;
        }
        final int oldFree = n.freeWhole;
        final boolean oldOk = n.linkOk();
        final String condition = !f.up() ? "down" : f.flapping() ? "flapping" : f.errorsRising() ? "errors rising" : null;
        st.impairmentVersion++;
        if (condition == null) {
            n.badPorts.remove(f.port());
        } else {
            n.badPorts.put(f.port(), condition);
        }
        n.linkDown = n.badPorts.containsValue("down");
        if (oldOk == n.linkOk()) {
            return false;
        }
        st.index.update(n, oldFree, oldOk);
        if (!n.linkOk() && n.linkDown && cfg.evictAndRequeueOnFailure()) {
            for (final Job j : new ArrayList<>(n.jobs)) {
                if (j.spec.nodes() > 1) {
                    jobs.evict(j, new Reason(ReasonCode.LINK_FAILURE, "node " + n.id() + " fabric link "
                            + f.port() + " down", Map.of("node", n.id(), "port", f.port())), "", true);
                }
            }
        }
        return true;
    }

    /** A leaf's congestion as judged outside the engine; it never frees capacity. */
    boolean leafUplink(final EngineInput.LeafUplinkFact f) {
        final int leaf = st.leaves.find(f.leaf());
        if (leaf >= 0) {
            st.leafCongested.set(leaf, f.congested());
        }
        return false;
    }

    /** A node's uplink figure, which re-judges its leaf. True when capacity grew (the node was stale). */
    boolean nodeUplink(final EngineInput.NodeUplinkFact f) {
        final NodeState n = st.nodesById.get(f.nodeId());
        if (n == null) {
            return false;
        }
        // telemetry: the node is alive (not stale) before its figure is counted
        final boolean grew = heartbeat(f.nodeId(), f.timestampMs());
        final boolean hadFigures = st.leafHasUplinks(n.leafIndex);
        st.uncountUplink(n);
        n.uplinkPct = f.uplinkPct();
        st.countUplink(n);
        st.judgeLeaf(n.leafIndex, cfg.leafCongestedPct(), hadFigures);
        return grew;
    }
}
