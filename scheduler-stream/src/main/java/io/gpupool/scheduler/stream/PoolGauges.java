package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.ModelCapacity;
import io.gpupool.scheduler.core.PoolCapacity;
import io.gpupool.scheduler.core.PoolUsage;
import io.gpupool.scheduler.core.PriorityClass;
import io.gpupool.scheduler.core.QueueDepth;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
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
    private final MultiGauge gpus;
    private final MultiGauge queueByClass;
    private final MultiGauge queueByTenant;
    private final MultiGauge fragmentation;
    private final MultiGauge oldestWait;
    private final MultiGauge tenantGpus;
    private final MultiGauge tenantQuota;
    private final MultiGauge idleAllocations;

    public PoolGauges(final PoolEngines engines, final MeterRegistry registry) {
        this.engines = engines;
        this.gpus = MultiGauge.builder("gpupool.gpus").description("GPUs by pool, model and state").register(registry);
        this.queueByClass = MultiGauge.builder("gpupool.queue.depth").description("Waiting jobs by pool and priority class")
                .register(registry);
        this.queueByTenant = MultiGauge.builder("gpupool.queue.depth.tenant").description("Waiting jobs by pool and tenant")
                .register(registry);
        this.fragmentation = MultiGauge.builder("gpupool.fragmentation")
                .description("Share of free GPU capacity the recent job mix cannot use (0-1)").register(registry);
        this.oldestWait = MultiGauge.builder("gpupool.queue.oldest.wait.seconds")
                .description("Seconds the longest-waiting queued job of a pool has waited, in stream time (0 when none waits)")
                .register(registry);
        this.tenantGpus = MultiGauge.builder("gpupool.tenant.gpus")
                .description("GPUs a tenant holds (state=held) and of those the ones sitting idle (state=idle), by pool")
                .register(registry);
        this.tenantQuota = MultiGauge.builder("gpupool.tenant.quota.gpus")
                .description("A tenant's quota by pool: limit=guaranteed (0 when none), limit=max (only when capped)")
                .register(registry);
        this.idleAllocations = MultiGauge.builder("gpupool.gpus.allocated.idle")
                .description("Allocated GPUs sitting idle, by pool, tenant, job and node: the "
                        + PoolView.IDLE_ROWS + " most idle allocations of each pool")
                .register(registry);
    }

    public void refresh() {
        final List<MultiGauge.Row<?>> g = new ArrayList<>();
        final List<MultiGauge.Row<?>> qc = new ArrayList<>();
        final List<MultiGauge.Row<?>> qt = new ArrayList<>();
        final List<MultiGauge.Row<?>> f = new ArrayList<>();
        final List<MultiGauge.Row<?>> w = new ArrayList<>();
        final List<MultiGauge.Row<?>> tg = new ArrayList<>();
        final List<MultiGauge.Row<?>> tq = new ArrayList<>();
        final List<MultiGauge.Row<?>> idle = new ArrayList<>();
        for (final PoolEngines.Handle h : engines.all()) {
            final Optional<PoolFigures> figures = h.views().latestFigures();
            if (figures.isEmpty()) {
                continue;
            }
            final PoolCapacity cap = figures.get().capacity();
            final QueueDepth q = figures.get().queueDepth();
            for (final ModelCapacity m : cap.byModel().values()) {
                final Tags t = Tags.of("pool", h.pool(), "model", m.model());
                g.add(MultiGauge.Row.of(t.and("state", "total"), m.total()));
                g.add(MultiGauge.Row.of(t.and("state", "allocatable"), m.allocatable()));
                g.add(MultiGauge.Row.of(t.and("state", "unhealthy"), m.unhealthy()));
                g.add(MultiGauge.Row.of(t.and("state", "allocated"), m.allocated()));
                g.add(MultiGauge.Row.of(t.and("state", "busy"), m.busy()));
                g.add(MultiGauge.Row.of(t.and("state", "free"), m.free()));
            }
            for (final PriorityClass c : PriorityClass.values()) {
                qc.add(MultiGauge.Row.of(Tags.of("pool", h.pool(), "class", c.name().toLowerCase(Locale.ROOT)),
                        q.byClass().getOrDefault(c, 0)));
            }
            for (final Map.Entry<String, Integer> e : q.byTenant().entrySet()) {
                qt.add(MultiGauge.Row.of(Tags.of("pool", h.pool(), "tenant", e.getKey()), e.getValue()));
            }
            f.add(MultiGauge.Row.of(Tags.of("pool", h.pool()), cap.fragmentation()));
            w.add(MultiGauge.Row.of(Tags.of("pool", h.pool()), figures.get().oldestWaitSeconds()));
            usage(h.pool(), figures.get().usage(), tg, tq, idle);
        }
        gpus.register(g, true);
        queueByClass.register(qc, true);
        queueByTenant.register(qt, true);
        fragmentation.register(f, true);
        oldestWait.register(w, true);
        tenantGpus.register(tg, true);
        tenantQuota.register(tq, true);
        idleAllocations.register(idle, true);
    }

    private static void usage(final String pool, final PoolUsage usage, final List<MultiGauge.Row<?>> held,
                              final List<MultiGauge.Row<?>> quota, final List<MultiGauge.Row<?>> idle) {
        for (final PoolUsage.TenantUsage t : usage.tenants()) {
            final Tags tags = Tags.of("pool", pool, "tenant", t.tenant());
            held.add(MultiGauge.Row.of(tags.and("state", "held"), t.heldGpus()));
            held.add(MultiGauge.Row.of(tags.and("state", "idle"), t.idleGpus()));
            quota.add(MultiGauge.Row.of(tags.and("limit", "guaranteed"), t.guaranteedGpus()));
            if (t.maxGpus() != Integer.MAX_VALUE) {
                quota.add(MultiGauge.Row.of(tags.and("limit", "max"), t.maxGpus()));
            }
        }
        for (final PoolUsage.IdleAllocation a : usage.idle()) {
            idle.add(MultiGauge.Row.of(Tags.of("pool", pool, "tenant", a.tenant(), "job_id", a.jobId(), "node", a.nodeId()),
                    a.idleGpus()));
        }
    }
}
