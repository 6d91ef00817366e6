package io.gpupool.scheduler.query;

import io.gpupool.avro.Evidence;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.Decision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.GpuView;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.ModelCapacity;
import io.gpupool.scheduler.core.NodeView;
import io.gpupool.scheduler.core.PendingAdvice;
import io.gpupool.scheduler.core.PlacementPart;
import io.gpupool.scheduler.core.PoolCapacity;
import io.gpupool.scheduler.core.QueueDepth;
import io.gpupool.scheduler.core.Reason;
import io.gpupool.scheduler.core.Reservation;
import io.gpupool.scheduler.core.TenantConfig;
import io.gpupool.scheduler.journal.DecisionWording;
import io.gpupool.scheduler.stream.PoolView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The engine's read-only views as JSON-ready maps (stable field order, lower-case enum values). Every answer
 * read from a {@link PoolView} carries a {@code view} block saying how current it is.
 */
final class Views {
    private Views() {
    }

    static Map<String, Object> pool(final PoolView view, final long placerOffset) {
        final PoolCapacity cap = view.capacity();
        final QueueDepth q = view.queueDepth();
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("pool", view.pool());
        m.put("nodes", view.nodeCount());
        final Map<String, Object> byModel = new LinkedHashMap<>();
        long total = 0;
        long allocatable = 0;
        long unhealthy = 0;
        long allocated = 0;
        long busy = 0;
        for (final ModelCapacity c : cap.byModel().values()) {
            final Map<String, Object> g = new LinkedHashMap<>();
            g.put("total", c.total());
            g.put("allocatable", c.allocatable());
            g.put("unhealthy", c.unhealthy());
            g.put("allocated", c.allocated());
            g.put("allocatedMilli", c.allocatedMilli());
            g.put("free", c.free());
            g.put("busy", c.busy());
            byModel.put(c.model(), g);
            total += c.total();
            allocatable += c.allocatable();
            unhealthy += c.unhealthy();
            allocated += c.allocated();
            busy += c.busy();
        }
        final Map<String, Object> gpus = new LinkedHashMap<>();
        gpus.put("total", total);
        gpus.put("allocatable", allocatable);
        gpus.put("unhealthy", unhealthy);
        gpus.put("allocated", allocated);
        gpus.put("busy", busy);
        gpus.put("byModel", byModel);
        m.put("gpus", gpus);
        final Map<String, Object> queue = new LinkedHashMap<>();
        queue.put("total", q.total());
        final Map<String, Object> byClass = new LinkedHashMap<>();
        q.byClass().forEach((k, v) -> byClass.put(lower(k.name()), v));
        queue.put("byClass", byClass);
        queue.put("byTenant", q.byTenant());
        m.put("queue", queue);
        m.put("fragmentation", cap.fragmentation());
        final Map<String, Object> use = new LinkedHashMap<>();
        use.put("allocatedPct", percent(allocated, allocatable));
        use.put("busyPct", percent(busy, allocatable));
        m.put("utilisation", use);
        m.put("tenants", tenants(view, q));
        m.put("journalOffset", view.journalOffset());
        m.put("view", freshness(view, placerOffset));
        return m;
    }

    /**
     * Each tenant that holds GPUs, waits, or has a quota: GPUs held (shares count as their fraction), jobs running
     * and queued, and its quota (guaranteed GPUs, weight, max GPUs; null max when unlimited). Sorted by tenant.
     */
    private static List<Object> tenants(final PoolView view, final QueueDepth q) {
        final EngineConfig cfg = view.config();
        final TreeMap<String, double[]> held = new TreeMap<>(); // tenant -> {gpus held, jobs running}
        for (final JobView j : view.runningJobs()) {
            final double[] h = held.computeIfAbsent(j.tenant(), k -> new double[2]);
            for (final PlacementPart part : j.placement()) {
                h[0] += part.gpus().size() * part.gpuMilli() / 1000.0;
            }
            h[1]++;
        }
        final TreeSet<String> names = new TreeSet<>(held.keySet());
        names.addAll(q.byTenant().keySet());
        names.addAll(cfg.tenants().keySet());
        final List<Object> out = new ArrayList<>();
        for (final String t : names) {
            final TenantConfig quota = cfg.tenant(t);
            final double[] h = held.getOrDefault(t, new double[2]);
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("tenant", t);
            m.put("allocatedGpus", h[0]);
            m.put("runningJobs", (long) h[1]);
            m.put("queuedJobs", q.byTenant().getOrDefault(t, 0));
            m.put("guaranteedGpus", quota.guaranteedGpus());
            m.put("weight", quota.weight());
            m.put("maxGpus", quota.maxGpus() == Integer.MAX_VALUE ? null : quota.maxGpus());
            out.add(m);
        }
        return out;
    }

    private static double percent(final long part, final long whole) {
        return whole == 0 ? 0 : Math.round(1000.0 * part / whole) / 10.0;
    }

    /**
     * How current a view is: the journal offset it includes, the offset the placer has applied (equal: nothing
     * has happened since), the pool's stream time then, and how long ago the placer last found it current.
     */
    static Map<String, Object> freshness(final PoolView view, final long placerOffset) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("journalOffset", view.journalOffset());
        m.put("placerJournalOffset", placerOffset);
        m.put("streamTimeMs", view.streamTimeMs());
        m.put("ageMs", view.ageMs());
        return m;
    }

    static Map<String, Object> node(final PoolView view, final NodeView n, final long placerOffset) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("nodeId", n.nodeId());
        m.put("pool", view.pool());
        m.put("leaf", n.leaf());
        m.put("spine", n.spine());
        m.put("model", n.model());
        m.put("fabric", n.fabric());
        m.put("freeGpus", n.freeGpus());
        m.put("cpuMilliFree", n.cpuMilliFree());
        m.put("memoryMibFree", n.memoryMibFree());
        m.put("multiNodeEligible", n.multiNodeEligible());
        m.put("badLinks", n.badLinks());
        m.put("jobs", n.jobs());
        m.put("lastTelemetryMs", n.lastTelemetryMs());
        final List<Object> gpus = new ArrayList<>();
        for (final GpuView g : n.gpus()) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("index", g.index());
            x.put("uuid", g.uuid());
            x.put("usedMilli", g.usedMilli());
            x.put("shared", g.shared());
            x.put("healthy", g.healthy());
            x.put("health", g.health());
            x.put("utilisationPct", g.utilisationPct());
            gpus.add(x);
        }
        m.put("gpus", gpus);
        m.put("gpuCounts", gpuCounts(n, view.config().busyUtilisationPct()));
        m.put("view", freshness(view, placerOffset));
        return m;
    }

    /**
     * The node's GPUs counted the way the pool counts them: free (healthy, nothing on it), allocated (something
     * on it, also a share), busy (allocated and at or above the busy utilisation), unhealthy (with why, per GPU).
     */
    private static Map<String, Object> gpuCounts(final NodeView n, final int busyPct) {
        int free = 0;
        int allocated = 0;
        int busy = 0;
        int unhealthy = 0;
        final List<String> why = new ArrayList<>();
        for (final GpuView g : n.gpus()) {
            if (!g.healthy()) {
                unhealthy++;
                why.add("GPU " + g.index() + ": " + g.health());
            }
            if (g.usedMilli() > 0) {
                allocated++;
                if (g.utilisationPct() >= busyPct) {
                    busy++;
                }
            } else if (g.healthy()) {
                free++;
            }
        }
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("total", n.gpus().size());
        m.put("free", free);
        m.put("allocated", allocated);
        m.put("busy", busy);
        m.put("unhealthy", unhealthy);
        m.put("unhealthyReasons", why);
        return m;
    }

    static Map<String, Object> job(final PoolView view, final JobView j, final List<PlacementDecision> history,
                                   final long placerOffset) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobId", j.jobId());
        m.put("pool", view.pool());
        m.put("tenant", j.tenant());
        m.put("priorityClass", lower(j.priorityClass().name()));
        m.put("priority", j.priority());
        m.put("state", lower(j.state().name()));
        final List<Object> placement = new ArrayList<>();
        for (final PlacementPart a : j.placement()) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("nodeId", a.nodeId());
            x.put("gpus", a.gpus());
            x.put("gpuMilli", a.gpuMilli());
            placement.add(x);
        }
        m.put("placement", placement);
        m.put("submittedMs", j.submittedMs());
        m.put("placedMs", j.placedMs());
        m.put("startedMs", j.startedMs() > 0 ? j.startedMs() : null);
        m.put("endedMs", j.state().finished() && j.lastDecision() != null ? j.lastDecision().timestampMs() : null);
        m.put("expectedStartMs", view.reservation().filter(r -> r.jobId().equals(j.jobId()))
                .map(Reservation::startAtMs).orElse(null));
        m.put("expectedEndMs", expectedEnd(j));
        m.put("evictions", j.evictions());
        m.put("placementId", j.placementId().isEmpty() ? null : j.placementId());
        m.put("lateEvents", j.staleEvents());
        m.put("refusedEvents", j.refusedEvents());
        m.put("lastRefusal", j.lastRefusal().isEmpty() ? null : j.lastRefusal());
        m.put("preemptedBy", j.preemptedBy() == null || j.preemptedBy().isEmpty() ? null : j.preemptedBy());
        m.put("reason", reason(j.currentReason()));
        m.put("lastDecision", j.lastDecision() == null ? null : decision(j.lastDecision()));
        m.put("runtimeEstimateMs", j.runtimeEstimateMs());
        final List<Object> h = new ArrayList<>();
        for (final PlacementDecision d : history) {
            h.add(decision(d));
        }
        m.put("history", h);
        m.put("view", freshness(view, placerOffset));
        return m;
    }

    /** When a job holding resources should end by its runtime estimate (null when unknown or never). */
    private static Long expectedEnd(final JobView j) {
        if (!j.state().holdsResources() || j.runtimeEstimateMs() <= 0) {
            return null;
        }
        final long from = j.startedMs() > 0 ? j.startedMs() : j.placedMs();
        return j.runtimeEstimateMs() > Long.MAX_VALUE - from ? null : from + j.runtimeEstimateMs();
    }

    /** A job the engine no longer holds (forgotten after it finished) but whose decisions are stored. */
    static Map<String, Object> jobFromHistory(final List<PlacementDecision> history) {
        final PlacementDecision last = history.get(history.size() - 1);
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobId", last.getJobId());
        m.put("pool", last.getPool());
        m.put("state", lower(last.getOutcome().name()));
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("code", last.getReasonCode());
        r.put("message", last.getMessage());
        m.put("reason", r);
        final List<Object> h = new ArrayList<>();
        for (final PlacementDecision d : history) {
            h.add(decision(d));
        }
        m.put("history", h);
        return m;
    }

    /**
     * A waiting job's way out ({@link PendingAdvice}): the request changes that place it now, the running jobs it
     * waits for ({@code expectedEndMs} in the pool's stream time, null for "never") and the jobs ahead of it.
     */
    static Map<String, Object> advice(final PendingAdvice a) {
        final List<Object> changes = new ArrayList<>();
        for (final PendingAdvice.Change c : a.wouldRunIf()) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("kind", lower(c.kind().name()));
            x.put("field", c.field());
            x.put("from", c.from());
            x.put("to", c.to());
            x.put("text", c.text());
            changes.add(x);
        }
        final List<Object> holders = new ArrayList<>();
        for (final PendingAdvice.Holder h : a.waitingFor()) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("jobId", h.jobId());
            x.put("tenant", h.tenant());
            x.put("gpuMilli", h.gpuMilli());
            x.put("nodes", h.nodes());
            x.put("expectedEndMs", h.expectedEndMs() == Long.MAX_VALUE ? null : h.expectedEndMs());
            holders.add(x);
        }
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("fitsNow", a.fitsNow());
        m.put("wouldRunIf", changes);
        m.put("waitingFor", holders);
        m.put("waitingForCount", a.waitingForCount());
        m.put("jobsAhead", a.jobsAhead());
        m.put("jobsAheadCount", a.jobsAheadCount());
        m.put("notes", a.notes());
        return m;
    }

    static Map<String, Object> reason(final Reason r) {
        if (r == null) {
            return null;
        }
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("code", r.code().name());
        m.put("message", r.message());
        m.put("evidence", r.evidence());
        return m;
    }

    private static Map<String, Object> decision(final Decision d) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("decisionId", d.decisionId());
        m.put("outcome", d.kind().name());
        m.put("reasonCode", d.reason().code().name());
        m.put("message", d.reason().message());
        m.put("timestampMs", d.timestampMs());
        return m;
    }

    static Map<String, Object> decision(final PlacementDecision d) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("decisionId", d.getDecisionId());
        m.put("outcome", d.getOutcome().name());
        m.put("reasonCode", d.getReasonCode());
        m.put("message", d.getMessage());
        m.put("text", DecisionWording.message(d)); // the message worded for people; "message" is as recorded
        final Map<String, String> ev = new LinkedHashMap<>();
        for (final Evidence e : d.getEvidence()) {
            ev.put(e.getSubject(), e.getDetail());
        }
        m.put("evidence", ev);
        final List<Object> nodes = new ArrayList<>();
        for (final NodeAssignment a : d.getAssignments()) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("nodeId", a.getNodeId());
            x.put("leaf", a.getLeaf());
            x.put("gpus", a.getGpus().stream().map(GpuAssignment::getIndex).toList());
            nodes.add(x);
        }
        m.put("assignments", nodes);
        m.put("preemptedBy", d.getPreemptedBy());
        m.put("victims", d.getVictims());
        m.put("journalPartition", d.getCause().getPartition());
        m.put("journalOffset", d.getCause().getOffset());
        m.put("timestampMs", d.getCause().getTimestamp().toEpochMilli());
        return m;
    }

    private static String lower(final String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
