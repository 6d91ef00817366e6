package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.ModelCapacity;
import io.gpupool.scheduler.core.PoolCapacity;
import io.gpupool.scheduler.core.PoolUsage;
import io.gpupool.scheduler.core.PriorityClass;
import io.gpupool.scheduler.core.QueueDepth;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Pool gauges: GPUs by pool, model and state (total, allocatable, unhealthy, allocated, busy, free),
 * queue depth by priority class and by tenant, how long the oldest waiting job has waited (stream
 * time, so alerts on waiting jobs agree with the journal), fragmentation. Refreshed by {@link #refresh()} (the
 * application calls it every few seconds) from each pool's latest {@link PoolFigures}, which the placer works
 * out between journal entries when asked: a scan of the nodes and running jobs, never an engine snapshot, so
 * scraping the gauges does not stall decisions. A pool whose first figures are not out yet is left out until
 * the next refresh.
 *
 * <p>Who holds what: GPUs held and idle per tenant with its quota, and the allocated-but-idle GPUs by tenant,
 * job and node (label job_id: Prometheus keeps "job" for its scrape job). Job ids are unbounded, so that gauge has a row only for an allocation that sits idle, and at
 * most {@link PoolView#IDLE_ROWS} per pool (the most idle): its series stay few however many jobs run.
 */
public final class PoolGauges {
    private final PoolEngines engines;
    private final GaugeTable gpus;
    private final GaugeTable queueByClass;
    private final GaugeTable queueByTenant;
    private final GaugeTable fragmentation;
    private final GaugeTable oldestWait;
    private final GaugeTable tenantGpus;
    private final GaugeTable tenantQuota;
    private final GaugeTable idleAllocations;

    public PoolGauges(final PoolEngines engines, final MeterRegistry registry) {
        this.engines = engines;
        this.gpus = new GaugeTable("gpupool.gpus", "GPUs by pool, model and state", registry);
        this.queueByClass = new GaugeTable("gpupool.queue.depth", "Waiting jobs by pool and priority class", registry);
        this.queueByTenant = new GaugeTable("gpupool.queue.depth.tenant", "Waiting jobs by pool and tenant", registry);
        this.fragmentation = new GaugeTable("gpupool.fragmentation",
                "Share of free GPU capacity the recent job mix cannot use (0-1)", registry);
        this.oldestWait = new GaugeTable("gpupool.queue.oldest.wait.seconds",
                "Seconds the longest-waiting queued job of a pool has waited, in stream time (0 when none waits)",
                registry);
        this.tenantGpus = new GaugeTable("gpupool.tenant.gpus",
                "GPUs a tenant holds (state=held) and of those the ones sitting idle (state=idle), by pool", registry);
        this.tenantQuota = new GaugeTable("gpupool.tenant.quota.gpus",
                "A tenant's quota by pool: limit=guaranteed (0 when none), limit=max (only when capped)", registry);
        this.idleAllocations = new GaugeTable("gpupool.gpus.allocated.idle",
                "Allocated GPUs sitting idle, by pool, tenant, job and node: the "
                        + PoolView.IDLE_ROWS + " most idle allocations of each pool", registry);
    }

    public void refresh() {
        final Map<Tags, Number> g = new LinkedHashMap<>();
        final Map<Tags, Number> qc = new LinkedHashMap<>();
        final Map<Tags, Number> qt = new LinkedHashMap<>();
        final Map<Tags, Number> f = new LinkedHashMap<>();
        final Map<Tags, Number> w = new LinkedHashMap<>();
        final Map<Tags, Number> tg = new LinkedHashMap<>();
        final Map<Tags, Number> tq = new LinkedHashMap<>();
        final Map<Tags, Number> idle = new LinkedHashMap<>();
        for (final PoolEngines.Handle h : engines.all()) {
            final Optional<PoolFigures> figures = h.views().latestFigures();
            if (figures.isEmpty()) {
                continue;
            }
            final PoolCapacity cap = figures.get().capacity();
            final QueueDepth q = figures.get().queueDepth();
            for (final ModelCapacity m : cap.byModel().values()) {
                final Tags t = Tags.of("pool", h.pool(), "model", m.model());
                g.put(t.and("state", "total"), m.total());
                g.put(t.and("state", "allocatable"), m.allocatable());
                g.put(t.and("state", "unhealthy"), m.unhealthy());
                g.put(t.and("state", "allocated"), m.allocated());
                g.put(t.and("state", "busy"), m.busy());
                g.put(t.and("state", "free"), m.free());
            }
            for (final PriorityClass c : PriorityClass.values()) {
                qc.put(Tags.of("pool", h.pool(), "class", c.name().toLowerCase(Locale.ROOT)),
                        q.byClass().getOrDefault(c, 0));
            }
            for (final Map.Entry<String, Integer> e : q.byTenant().entrySet()) {
                qt.put(Tags.of("pool", h.pool(), "tenant", e.getKey()), e.getValue());
            }
            f.put(Tags.of("pool", h.pool()), cap.fragmentation());
            w.put(Tags.of("pool", h.pool()), figures.get().oldestWaitSeconds());
            usage(h.pool(), figures.get().usage(), tg, tq, idle);
        }
        gpus.update(g);
        queueByClass.update(qc);
        queueByTenant.update(qt);
        fragmentation.update(f);
        oldestWait.update(w);
        tenantGpus.update(tg);
        tenantQuota.update(tq);
        idleAllocations.update(idle);
    }

    private static void usage(final String pool, final PoolUsage usage, final Map<Tags, Number> held,
                              final Map<Tags, Number> quota, final Map<Tags, Number> idle) {
        for (final PoolUsage.TenantUsage t : usage.tenants()) {
            final Tags tags = Tags.of("pool", pool, "tenant", t.tenant());
            held.put(tags.and("state", "held"), t.heldGpus());
            held.put(tags.and("state", "idle"), t.idleGpus());
            quota.put(tags.and("limit", "guaranteed"), t.guaranteedGpus());
            if (t.maxGpus() != Integer.MAX_VALUE) {
                quota.put(tags.and("limit", "max"), t.maxGpus());
            }
        }
        for (final PoolUsage.IdleAllocation a : usage.idle()) {
            idle.put(Tags.of("pool", pool, "tenant", a.tenant(), "job_id", a.jobId(), "node", a.nodeId()),
                    a.idleGpus());
        }
    }
}
