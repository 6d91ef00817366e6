package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/** Computes {@link PoolUsage} from the jobs holding resources (in the order they became live: deterministic). */
final class UsageView {
    private static final Comparator<PoolUsage.IdleAllocation> MOST_IDLE_FIRST =
            Comparator.comparingDouble(PoolUsage.IdleAllocation::idleGpus).reversed()
                    .thenComparing(PoolUsage.IdleAllocation::jobId).thenComparing(PoolUsage.IdleAllocation::nodeId);

    private UsageView() {
    }

    static PoolUsage of(final PoolState st, final EngineConfig cfg, final int maxIdleRows) {
        final TreeMap<String, double[]> byTenant = new TreeMap<>(); // held, idle
        cfg.tenants().keySet().forEach(t -> byTenant.put(t, new double[2]));
        // the most idle rows only: a bounded heap whose head is the least idle kept, not a sort of every idle part
        // (a full pool of idle 1-GPU jobs has tens of thousands; the gauges read this every few seconds)
        final int keep = Math.max(0, maxIdleRows);
        final PriorityQueue<PoolUsage.IdleAllocation> idle = new PriorityQueue<>(keep + 1, MOST_IDLE_FIRST.reversed());
        double idleTotal = 0;
        for (final Job j : st.activeJobs.values()) {
            if (!j.state.holdsResources()) {
                continue;
            }
            final double[] tenant = byTenant.computeIfAbsent(j.spec.tenant(), t -> new double[2]);
            for (final PlacementPart part : j.placement) {
                final NodeState n = st.nodesById.get(part.nodeId());
                final double share = part.gpuMilli() / 1000.0;
                double idleHere = 0;
                for (final int g : part.gpus()) {
                    tenant[0] += share;
                    if (n == null || g >= n.gpuCount || n.utilisationPct[g] < cfg.busyUtilisationPct()) {
                        idleHere += share;
                    }
                }
                if (idleHere > 0) {
                    tenant[1] += idleHere;
                    idleTotal += idleHere;
                    if (keep > 0) {
                        idle.add(new PoolUsage.IdleAllocation(j.spec.tenant(), j.id(), part.nodeId(), idleHere));
                        if (idle.size() > keep) {
                            idle.poll();
                        }
                    }
                }
            }
        }
        final List<PoolUsage.IdleAllocation> mostIdle = new ArrayList<>(idle);
        mostIdle.sort(MOST_IDLE_FIRST);
        final List<PoolUsage.TenantUsage> tenants = new ArrayList<>(byTenant.size());
        for (final Map.Entry<String, double[]> e : byTenant.entrySet()) {
            final TenantConfig q = cfg.tenant(e.getKey());
            tenants.add(new PoolUsage.TenantUsage(e.getKey(), e.getValue()[0], e.getValue()[1], q.guaranteedGpus(),
                    q.maxGpus()));
        }
        return new PoolUsage(tenants, mostIdle, idleTotal);
    }
}
