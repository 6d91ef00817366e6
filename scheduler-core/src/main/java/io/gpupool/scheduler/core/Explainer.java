package io.gpupool.scheduler.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Works out the one dominant reason a job does not fit now, with its evidence. Runs only when a
 * placement failed (or a query asks), so it may look at every node of the allowed models.
 */
final class Explainer {
    private static final int EXAMPLES = 3;
    private final PoolState st;
    private final PlacementSearch placer;
    private final ModelStats stats;
    /** Whether any GPU is unhealthy or any node's link impaired, as of {@link PoolState#impairmentVersion}. */
    private int impairedAsOf = -1;
    private boolean impaired;

    Explainer(final PoolState st, final PlacementSearch placer, final ModelStats stats) {
        this.st = st;
        this.placer = placer;
        this.stats = stats;
    }

    Reason whyNot(final JobSpec job) {
        final Reason quick = tooFewFreeGpus(job);
        return quick != null ? quick : whyNotByScan(job);
    }

    /**
     * The common answer without walking every GPU: a whole-GPU job in a pool with nothing unhealthy
     * and no impaired link, and fewer free GPUs than it needs. The walk would find exactly this
     * (no unhealthy or link examples to show); with a standing queue it ran for every waiting job.
     * Null when the walk is needed.
     */
    private Reason tooFewFreeGpus(final JobSpec job) {
        final int[] models = placer.models(job);
        if (job.isShare() || models.length == 0 || st.nodesById.isEmpty() || impaired()) {
            return null;
        }
        final ModelStats totals = stats.current(st);
        long total = 0;
        long free = 0;
        for (final int m : models) {
            total += totals.totalGpus[m];
            for (int b = 1; b <= NodeSpec.MAX_GPUS_PER_NODE; b++) {
                free += (long) b * st.index.modelCount(m, b);
            }
        }
        final long need = (long) job.nodes() * job.gpusPerNode();
        if (free >= need) {
            return null;
        }
        final String what = what(job);
        final Map<String, String> ev = new LinkedHashMap<>();
        ev.put("needs", what);
        ev.put("gpus_total", Long.toString(total));
        ev.put("gpus_free_healthy", Long.toString(free));
        ev.put("gpus_unhealthy", "0");
        return new Reason(ReasonCode.INSUFFICIENT_FREE_GPUS, "needs " + what + "; " + free + " of " + total
                + " free, 0 unhealthy", ev);
    }

    private boolean impaired() {
        if (impairedAsOf != st.impairmentVersion) {
            boolean any = false;
            for (final NodeState s : st.slots) {
                if (s != null && (!s.linkOk() || s.unhealthyCount() > 0)) {
                    any = true;
                    break;
                }
            }
            impaired = any;
            impairedAsOf = st.impairmentVersion;
        }
        return impaired;
    }

    private static String what(final JobSpec job) {
        final String modelText = job.allowedModels().isEmpty() ? "" : String.join("|", job.allowedModels()) + " ";
        final int k = job.gpusPerNode();
        final int n = job.nodes();
        return job.isShare()
                ? job.gpuMilli() + " milli-GPU of one " + modelText + "GPU"
                : n > 1 ? n + " nodes x " + k + " " + modelText + "GPUs" : k + " " + modelText + "GPUs on one node";
    }

    /** The full answer: every node and GPU of the allowed models looked at. */
    Reason whyNotByScan(final JobSpec job) {
        final int[] models = placer.models(job);
        final String modelText = job.allowedModels().isEmpty() ? "" : String.join("|", job.allowedModels()) + " ";
        if (models.length == 0 || st.nodesById.isEmpty()) {
            return new Reason(ReasonCode.NO_NODES, st.nodesById.isEmpty() ? "the pool has no nodes yet"
                    : "no node has GPU model " + modelText.trim(), Map.of());
        }
        final boolean[] allowed = new boolean[st.models.size()];
        for (final int m : models) {
            allowed[m] = true;
        }
        final int k = job.gpusPerNode();
        final int n = job.nodes();
        final boolean multi = n > 1;
        long total = 0;
        long freeHealthy = 0;
        long unhealthyIdle = 0;
        long unhealthy = 0;
        int nodesWithK = 0;
        int nodesWithKFits = 0;
        int nodesWithKIfHealthy = 0;
        NodeState bestNode = null;
        int linkExcludedWithK = 0;
        int networkExcludedWithK = 0;
        int bestShare = -1;
        NodeState bestShareNode = null;
        boolean shareMemBlocked = false;
        final StringBuilder unhealthyText = new StringBuilder();
        int unhealthyShown = 0;
        final StringBuilder linkText = new StringBuilder();
        int linkShown = 0;
        final int[] leafFit = new int[st.leaves.size()];
        for (final NodeState s : st.slots) {
            if (s == null || !allowed[s.modelIndex]) {
                continue;
            }
            total += s.gpuCount;
            freeHealthy += s.freeWhole;
            int idleUnhealthy = 0;
            for (int g = 0; g < s.gpuCount; g++) {
                if (s.healthBits[g] != 0) {
                    unhealthy++;
                    if (s.usedMilli[g] == 0) {
                        idleUnhealthy++;
                    }
                    if (unhealthyShown < EXAMPLES) {
                        sep(unhealthyText).append("node ").append(s.id()).append(" GPU ").append(g)
                                .append(" unhealthy (").append(s.describeUnhealthy(g)).append(')');
                        unhealthyShown++;
                    }
                } else if (job.isShare() && 1000 - s.usedMilli[g] >= job.gpuMilli()) {
                    final int mem = s.spec.gpus().get(g).memoryMib();
                    if (job.gpuMemoryMib() > 0 && mem > 0 && s.usedGpuMemMib[g] + job.gpuMemoryMib() > mem) {
                        shareMemBlocked = true;
                    }
                } 
                if (s.healthBits[g] == 0 && 1000 - s.usedMilli[g] > bestShare) {
                    bestShare = 1000 - s.usedMilli[g];
                    bestShareNode = s;
                }
            }
            unhealthyIdle += idleUnhealthy;
            if (bestNode == null || s.freeWhole > bestNode.freeWhole) {
                bestNode = s;
            }
            if (s.freeWhole < k && s.freeWhole + idleUnhealthy >= k) {
                nodesWithKIfHealthy++;
            }
            if (s.freeWhole >= k) {
                nodesWithK++;
                final boolean cpuMem = s.cpuFree >= job.cpuMilliPerNode() && s.memFree >= job.memoryMibPerNode();
                if (multi && !s.linkOk()) {
                    linkExcludedWithK++;
                    if (linkShown++ < EXAMPLES) {
                        sep(linkText).append("node ").append(s.id()).append(" link ").append(s.badPorts);
                    }
                } else if (!job.network().satisfiedBy(s.infiniband, s.roce)) {
                    networkExcludedWithK++;
                } else if (cpuMem) {
                    nodesWithKFits++;
                    leafFit[s.leafIndex]++;
                }
            }
        }
        final Map<String, String> ev = new LinkedHashMap<>();
        final String what = what(job);
        ev.put("needs", what);
        ev.put("gpus_total", Long.toString(total));
        ev.put("gpus_free_healthy", Long.toString(freeHealthy));
        ev.put("gpus_unhealthy", Long.toString(unhealthy));
        if (unhealthyText.length() > 0) {
            ev.put("unhealthy", unhealthyText.toString());
        }
        if (linkText.length() > 0) {
            ev.put("link_excluded", linkText.toString());
        }
        final String tail = unhealthyText.length() > 0 ? "; " + unhealthyText : "";
        if (job.isShare()) {
            if (bestShare < job.gpuMilli()) {
                ev.put("largest_free_share", bestShare + (bestShareNode == null ? "" : " on node " + bestShareNode.id()));
                return new Reason(ReasonCode.INSUFFICIENT_FREE_GPUS, "needs " + what + "; the largest free share is "
                        + Math.max(0, bestShare) + " milli-GPU" + tail, ev);
            }
            if (shareMemBlocked) {
                return new Reason(ReasonCode.INSUFFICIENT_GPU_MEMORY, "needs " + what + " with "
                        + job.gpuMemoryMib() + " MiB GPU memory; GPUs with room lack the memory" + tail, ev);
            }
            return new Reason(ReasonCode.INSUFFICIENT_CPU_OR_MEMORY, "needs " + what + " with "
                    + job.cpuMilliPerNode() + " mCPU and " + job.memoryMibPerNode() + " MiB; nodes with GPU room lack CPU or memory", ev);
        }
        final long need = (long) n * k;
        if (freeHealthy < need) {
            if (freeHealthy + unhealthyIdle >= need) {
                return new Reason(ReasonCode.UNHEALTHY_GPUS, "needs " + what + "; " + freeHealthy
                        + " free and healthy, " + unhealthy + " unhealthy" + tail, ev);
            }
            return new Reason(ReasonCode.INSUFFICIENT_FREE_GPUS, "needs " + what + "; " + freeHealthy + " of "
                    + total + " free, " + unhealthy + " unhealthy" + tail, ev);
        }
        if (!multi) {
            if (nodesWithK == 0) {
                ev.put("best_node", bestNode.id() + " with " + bestNode.freeWhole + " free");
                final ReasonCode code = nodesWithKIfHealthy > 0 ? ReasonCode.UNHEALTHY_GPUS
                        : ReasonCode.NO_NODE_WITH_ENOUGH_FREE_GPUS;
                return new Reason(code, "needs " + what + "; best node " + bestNode.id() + " has "
                        + bestNode.freeWhole + " free" + tail, ev);
            }
            if (networkExcludedWithK > 0 && nodesWithKFits == 0) {
                return new Reason(ReasonCode.NETWORK_UNAVAILABLE, "needs " + what + " on " + job.network()
                        + "; " + networkExcludedWithK + " nodes with free GPUs lack that fabric", ev);
            }
            return new Reason(ReasonCode.INSUFFICIENT_CPU_OR_MEMORY, "needs " + what + " with "
                    + job.cpuMilliPerNode() + " mCPU and " + job.memoryMibPerNode() + " MiB; " + nodesWithK
                    + " nodes have the GPUs but not the CPU or memory", ev);
        }
        int bestLeaf = -1;
        int others = 0;
        for (int l = 0; l < leafFit.length; l++) {
            if (bestLeaf < 0 || leafFit[l] > leafFit[bestLeaf]) {
                bestLeaf = l;
            }
        }
        for (int l = 0; l < leafFit.length; l++) {
            if (l != bestLeaf) {
                others = Math.max(others, leafFit[l]);
            }
        }
        final int bestCount = bestLeaf < 0 ? 0 : leafFit[bestLeaf];
        final String leafName = bestLeaf < 0 ? "-" : st.leaves.name(bestLeaf);
        ev.put("best_leaf", leafName);
        ev.put("best_leaf_nodes", Integer.toString(bestCount));
        if (nodesWithKFits >= n || job.topology() == GangScope.LEAF || job.topology() == GangScope.NODE) {
            if (nodesWithKFits + linkExcludedWithK >= n && linkExcludedWithK > 0 && nodesWithKFits < n) {
                return new Reason(ReasonCode.LINK_EXCLUDED, "needs " + what + "; " + linkExcludedWithK
                        + " nodes with free GPUs are out of multi-node placement: " + linkText + tail, ev);
            }
            final String scope = job.topology() == GangScope.SPINE ? "one spine" : "one leaf";
            final ReasonCode code = job.topology() == GangScope.SPINE ? ReasonCode.NO_SPINE_FOR_GANG
                    : ReasonCode.NO_LEAF_FOR_GANG;
            return new Reason(code, "needs " + what + " on " + scope + "; leaf " + leafName + " has "
                    + bestCount + " node" + (bestCount == 1 ? "" : "s") + " with " + k + " free, the others "
                    + (others < bestCount ? "fewer" : "as many")
                    + (linkText.length() > 0 ? "; " + linkText : "") + tail, ev);
        }
        if (linkExcludedWithK > 0 && nodesWithKFits + linkExcludedWithK >= n) {
            return new Reason(ReasonCode.LINK_EXCLUDED, "needs " + what + "; " + linkExcludedWithK
                    + " nodes with free GPUs are out of multi-node placement: " + linkText + tail, ev);
        }
        if (networkExcludedWithK > 0) {
            return new Reason(ReasonCode.NETWORK_UNAVAILABLE, "needs " + what + " on " + job.network()
                    + "; " + networkExcludedWithK + " nodes with free GPUs lack that fabric", ev);
        }
        return new Reason(ReasonCode.INSUFFICIENT_CPU_OR_MEMORY, "needs " + what + " with "
                + job.cpuMilliPerNode() + " mCPU and " + job.memoryMibPerNode() + " MiB per node; only "
                + nodesWithKFits + " nodes have both", ev);
    }

    private static StringBuilder sep(final StringBuilder b) {
        return b.length() == 0 ? b : b.append("; ");
    }
}
