package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The read-only views of the pool that {@link PoolEngine} hands out: capacity per model,
 * fragmentation, queue depth, nodes with their GPUs, and jobs with the reason they are where they
 * are (a waiting job's reason is explained against the pool as it is now). Nothing here changes state.
 */
final class PoolViews {
    private final PoolState st;
    private final EngineConfig cfg;
    private final QueuePass pass;
    private final Explainer explainer;

    PoolViews(final PoolState st, final EngineConfig cfg, final QueuePass pass, final Explainer explainer) {
        this.st = st;
        this.cfg = cfg;
        this.pass = pass;
        this.explainer = explainer;
    }

    PoolCapacity capacity() {
        final TreeMap<String, long[]> acc = new TreeMap<>();
        for (final NodeState n : st.slots) {
            if (n == null || n.gpuCount == 0) {
                continue;
            }
            final long[] a = acc.computeIfAbsent(st.models.name(n.modelIndex), k -> new long[7]);
            for (int g = 0; g < n.gpuCount; g++) {
                a[0]++;
                if (n.healthBits[g] != 0) {
                    a[2]++;
                } else {
                    a[1]++;
                }
                if (n.usedMilli[g] > 0) {
                    a[3]++;
                    a[4] += n.usedMilli[g];
                    if (n.utilisationPct[g] >= cfg.busyUtilisationPct()) {
                        a[6]++;
                    }
                } else if (n.healthBits[g] == 0) {
                    a[5]++;
                }
            }
        }
        final TreeMap<String, ModelCapacity> out = new TreeMap<>();
        acc.forEach((m, a) -> out.put(m, new ModelCapacity(m, a[0], a[1], a[2], a[3], a[4], a[5], a[6])));
        return new PoolCapacity(out, fragmentation());
    }

    /**
     * Share of the free healthy GPU capacity that the recent job mix cannot use (FGD's measure,
     * normalised); 0 when nothing is free or no job arrived yet.
     */
    double fragmentation() {
        final JobSizeMix mix = st.sizeMix;
        long weight = 0;
        for (int i = 0; i < mix.typical.length; i++) {
            if (mix.typical[i].gpus() > 0) {
                weight += mix.weights[i];
            }
        }
        final int[] free = new int[NodeSpec.MAX_GPUS_PER_NODE];
        long freeMilli = 0;
        double frag = 0;
        for (final NodeState n : st.slots) {
            if (n == null || n.gpuCount == 0) {
                continue;
            }
            Fragmentation.freeOf(n, free);
            for (int g = 0; g < n.gpuCount; g++) {
                freeMilli += free[g];
            }
            if (weight > 0) {
                frag += Fragmentation.expected(mix, st.models, n.modelIndex, free, n.gpuCount, n.cpuFree);
            }
        }
        return freeMilli == 0 || weight == 0 ? 0 : frag / weight / freeMilli;
    }

    QueueDepth queueDepth() {
        return st.queue.depth();
    }

    Optional<NodeView> node(final String nodeId) {
        final NodeState n = st.nodesById.get(nodeId);
        return n == null ? Optional.empty() : Optional.of(view(n));
    }

    /** All nodes in pool order. */
    List<NodeView> nodes() {
        final List<NodeView> out = new ArrayList<>();
        for (final NodeState n : st.slots) {
            if (n != null) {
                out.add(view(n));
            }
        }
        return out;
    }

    private NodeView view(final NodeState n) {
        final List<GpuView> gpus = new ArrayList<>(n.gpuCount);
        for (int g = 0; g < n.gpuCount; g++) {
            final GpuSpec s = n.spec.gpus().get(g);
            gpus.add(new GpuView(g, s.uuid(), s.model(), n.usedMilli[g], n.shared[g], n.healthBits[g] == 0,
                    n.describeUnhealthy(g), n.utilisationPct[g]));
        }
        final List<String> jobs = new ArrayList<>();
        for (final Job j : n.jobs) {
            jobs.add(j.id());
        }
        return new NodeView(n.id(), st.leaves.name(n.leafIndex), st.spines.name(n.spineIndex),
                st.models.name(n.modelIndex), gpus, n.cpuFree, n.memFree, n.freeWhole, n.linkOk(), n.badPorts,
                jobs, n.lastTelemetryMs, fabric(n));
    }

    private static String fabric(final NodeState n) {
        if (n.infiniband && n.roce) {
            return "infiniband+roce";
        }
        return n.infiniband ? "infiniband" : n.roce ? "roce" : "none";
    }

    Optional<JobView> job(final String jobId) {
        final Job j = st.job(jobId);
        return j == null ? Optional.empty() : Optional.of(view(j));
    }

    /** When the longest-waiting queued job was submitted (stream time); empty when none waits. */
    OptionalLong oldestQueuedSubmitMs() {
        final Job oldest = st.queue.oldest();
        return oldest == null ? OptionalLong.empty() : OptionalLong.of(oldest.submitMs);
    }

    /** Waiting jobs in the order the queue policy would consider them now. */
    List<JobView> queuedJobs() {
        final List<JobView> out = new ArrayList<>();
        for (final Job j : st.queue.policyOrdered(st, cfg)) {
            out.add(view(j));
        }
        return out;
    }

    /** Jobs that hold resources (placed or running), in submission order. */
    List<JobView> runningJobs() {
        final List<JobView> out = new ArrayList<>();
        for (final Job j : st.activeJobs.values()) {
            if (j.state.holdsResources()) {
                out.add(view(j));
            }
        }
        return out;
    }

    /** The finished jobs the engine still keeps ({@code finished-jobs-retained}), oldest first. */
    List<JobView> finishedJobs() {
        final List<JobView> out = new ArrayList<>(st.finishedJobs.size());
        for (final Job j : st.finishedJobs.values()) {
            out.add(view(j));
        }
        return out;
    }

    private JobView view(final Job j) {
        Reason r = j.currentReason;
        if (j.state == JobState.QUEUED) {
            r = pass.reasonFor(j, explainer); // explain against the pool as it is now
        }
        return new JobView(j.id(), j.spec.tenant(), j.spec.priorityClass(), j.spec.priority(), j.state, j.placement,
                j.submitMs, j.placedAtMs, j.evictions, j.preemptedBy, j.lastDecision, r,
                st.estimator.estimate(j.spec, cfg.defaultRuntimeMs()), j.placementId, j.staleEvents, j.refusedEvents,
                j.lastRefusal, j.startedAtMs);
    }
}
