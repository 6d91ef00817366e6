package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.JobState;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.PoolEngine;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The views queries and gauges read: published by the placer between journal entries, equal to the live
 * engine at the same journal position, and read without the placer's lock, so neither side waits for the
 * other. Both stages under a TopologyTestDriver; its wall clock drives the publication.
 */
class PoolViewsTest {
    /** How long the placer (or a gauge refresh) may take to go on: far longer than it needs. */
    private static final Duration BOUND = Duration.ofSeconds(10);
    /** How long a blocked reader or lock holder stays blocked at most: longer than BOUND, so it cannot end the wait. */
    private static final Duration HOLD = Duration.ofSeconds(60);
    private Harness h;
    private long now;

    @BeforeEach
    void start() throws Exception {
        h = new Harness(1000, 10_000);
        now = System.currentTimeMillis();
        for (int n = 0; n < 4; n++) {
            h.inventory.pipeInput("n" + n, Fixtures.node("p1", "n" + n, n < 2 ? "leaf-a" : "leaf-b", 8), now);
            h.gpu.pipeInput("n" + n, Fixtures.gpus("n" + n, 8, 10, now), now);
        }
        submit("big", "team-a", 2, 8);
        submit("small", "team-a", 1, 4);
        // 12 GPUs left, none of these fits: each waits, with its own reason
        submit("whole-pool", "team-a", 4, 8);
        submit("two-nodes", "team-b", 2, 8);
        submit("three-nodes", "team-c", 3, 8);
        assertThat(h.decisions()).extracting(d -> d.getJobId() + ":" + d.getOutcome()).contains("big:PLACED",
                "small:PLACED", "whole-pool:QUEUED", "two-nodes:QUEUED", "three-nodes:QUEUED");
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private void submit(final String id, final String tenant, final int nodes, final int gpus) {
        h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", nodes, gpus).setTenant(tenant).build()), now);
    }

    private PoolEngines.Handle pool() {
        return h.engines.pool("p1").orElseThrow();
    }

    /**
     * A reader asks, and a wall-clock punctuation of the placer publishes (the first one not too soon after
     * the last snapshot, see {@link ViewPublisher#WORK_PER_VIEW}).
     */
    private PoolView published() {
        return await("a view at the placer's offset").atMost(BOUND).pollInSameThread().pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10)).until(() -> {
                    pool().views().latest();
                    h.driver.advanceWallClockTime(ViewPublisher.EVERY);
                    return pool().views().latest().orElseThrow();
                }, v -> v.journalOffset() == pool().journalOffset());
    }

    /** The gauges ask, and punctuations of the placer work the figures out, until they are at the placer's offset. */
    private PoolFigures figuresPublished(final PoolGauges gauges) {
        final PoolFigures f = await("figures at the placer's offset").atMost(BOUND).pollInSameThread().pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10)).until(() -> {
                    gauges.refresh();
                    h.driver.advanceWallClockTime(ViewPublisher.EVERY);
                    return pool().views().lastFigures().orElse(null);
                }, x -> x != null && x.journalOffset() == pool().journalOffset());
        gauges.refresh();
        return f;
    }

    @Test
    void gaugesReadFiguresTheyCostThePlacerNoSnapshot() {
        final PoolGauges gauges = new PoolGauges(h.engines, h.meters);
        final PoolFigures f = figuresPublished(gauges);
        for (int i = 0; i < 5; i++) {
            gauges.refresh();
            h.driver.advanceWallClockTime(ViewPublisher.EVERY.multipliedBy(10));
        }
        assertThat(f.capacity()).isEqualTo(pool().read(PoolEngine::capacity));
        assertThat(f.queueDepth()).isEqualTo(pool().read(PoolEngine::queueDepth));
        assertThat(f.usage()).isEqualTo(pool().read(e -> e.usage(PoolView.IDLE_ROWS)));
        assertThat(h.meters.find("gpupool.view.figures").timer().count()).isPositive();
        assertThat(h.meters.find("gpupool.view.publish").timer().count()).as("engine snapshots for views").isZero();
        assertThat(gauge("gpupool.queue.depth.tenant", "tenant", "team-c")).isEqualTo(1);
    }

    @Test
    void explainOnTheViewEqualsExplainOnTheLiveEngineAtTheSameJournalPosition() {
        final PoolView view = published();
        final List<JobView> live = pool().read(PoolEngine::queuedJobs);
        assertThat(live).extracting(JobView::jobId).containsExactlyInAnyOrder("whole-pool", "two-nodes", "three-nodes");
        assertThat(live).allSatisfy(j -> assertThat(j.currentReason()).isNotNull());
        assertThat(view.queuedJobs()).isEqualTo(live);
        for (final String id : List.of("whole-pool", "two-nodes", "three-nodes", "big", "small")) {
            assertThat(view.job(id)).isEqualTo(pool().read(e -> e.job(id)));
        }
        assertThat(view.capacity()).isEqualTo(pool().read(PoolEngine::capacity));
        assertThat(view.queueDepth()).isEqualTo(pool().read(PoolEngine::queueDepth));
        assertThat(view.node("n2")).isEqualTo(pool().read(e -> e.node("n2")));
        assertThat(view.nowMs()).isEqualTo(pool().read(PoolEngine::nowMs));

        // the live engine moves on (big ends); the view keeps what it saw
        h.events.pipeInput("big", h.event("big", JobEventType.COMPLETED, now), now);
        assertThat(h.decisions()).extracting(d -> d.getJobId() + ":" + d.getOutcome()).contains("big:RELEASED");
        assertThat(pool().journalOffset()).isGreaterThan(view.journalOffset());
        assertThat(view.job("big").orElseThrow().state()).isEqualTo(JobState.PLACED);
        assertThat(view.queuedJobs()).isEqualTo(live);
        final PoolView next = published();
        assertThat(next.queuedJobs()).isEqualTo(pool().read(PoolEngine::queuedJobs)).isNotEqualTo(live);
    }

    @Test
    void aQueryThatBlocksInsideItsViewDoesNotStopThePlacer() throws Exception {
        final PoolView view = published();
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Integer> slowQuery = CompletableFuture.supplyAsync(() -> view.read(e -> {
            inside.countDown();
            blockOn(release);
            return e.queuedJobs().size();
        }));
        try {
            assertThat(inside.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
            final long before = pool().journalOffset();
            // meanwhile the placer applies entries and decides
            assertTimeoutPreemptively(BOUND, () -> {
                for (int i = 0; i < 5; i++) {
                    submit("meanwhile-" + i, "team-a", 1, 1);
                }
            });
            assertThat(h.decisions()).extracting(PlacementDecision::getJobId)
                    .containsExactly("meanwhile-0", "meanwhile-1", "meanwhile-2", "meanwhile-3", "meanwhile-4");
            assertThat(pool().journalOffset()).isGreaterThan(before);
        } finally {
            release.countDown();
        }
        assertThat(slowQuery.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(3);
        // and the next reader gets a view that includes what was applied meanwhile
        assertThat(published().job("meanwhile-4")).isPresent();
    }

    @Test
    void gaugesRefreshWhileThePlacerHoldsThePoolsLock() throws Exception {
        final PoolGauges gauges = new PoolGauges(h.engines, h.meters);
        figuresPublished(gauges);
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        // what the placer does while it applies one (long) journal entry
        final CompletableFuture<Void> placer = CompletableFuture.runAsync(() -> {
            synchronized (pool()) {
                held.countDown();
                blockOn(release);
            }
        });
        try {
            assertThat(held.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertTimeoutPreemptively(BOUND, gauges::refresh);
        } finally {
            release.countDown();
        }
        placer.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(gauge("gpupool.gpus", "state", "allocated")).isEqualTo(20);
        assertThat(gauge("gpupool.queue.depth.tenant", "tenant", "team-b")).isEqualTo(1);
    }

    @Test
    void gaugesSayWhoHoldsIdleGpusAndTheSchedulerTimesEachTenantsQueueWait() {
        final PoolGauges gauges = new PoolGauges(h.engines, h.meters);
        for (int n = 0; n < 4; n++) {
            h.gpu.pipeInput("n" + n, Fixtures.gpus("n" + n, 8, 0, now), now); // nothing works: allocated is idle
        }
        figuresPublished(gauges);
        assertThat(gauge("gpupool.tenant.gpus", "tenant", "team-a", "state", "held")).isEqualTo(20);
        assertThat(gauge("gpupool.tenant.gpus", "tenant", "team-a", "state", "idle")).isEqualTo(20);
        assertThat(gauge("gpupool.tenant.quota.gpus", "tenant", "team-a", "limit", "guaranteed")).isZero();
        assertThat(h.meters.find("gpupool.tenant.quota.gpus").tags("limit", "max").gauges()).as("no cap, no series").isEmpty();
        final Map<String, Double> idleByJob = new TreeMap<>();
        h.meters.find("gpupool.gpus.allocated.idle").tags("pool", "p1", "tenant", "team-a").gauges()
                .forEach(g -> idleByJob.merge(g.getId().getTag("job_id"), g.value(), Double::sum));
        assertThat(idleByJob).isEqualTo(Map.of("big", 16.0, "small", 4.0));

        for (int n = 0; n < 4; n++) {
            h.gpu.pipeInput("n" + n, Fixtures.gpus("n" + n, 8, 90, now), now); // now they work
        }
        figuresPublished(gauges);
        assertThat(h.meters.find("gpupool.gpus.allocated.idle").gauges()).as("rows only for idle allocations").isEmpty();
        assertThat(gauge("gpupool.tenant.gpus", "tenant", "team-a", "state", "idle")).isZero();

        // big and small were placed at once; when big ends 3 s later, a job that waited for it starts
        final Timer teamA = h.meters.find("gpupool.queue.wait").tags("pool", "p1", "tenant", "team-a").timer();
        assertThat(teamA.count()).isEqualTo(2);
        assertThat(teamA.max(TimeUnit.MILLISECONDS)).isZero();
        h.events.pipeInput("big", h.event("big", JobEventType.COMPLETED, now + 3_000), now + 3_000);
        final PlacementDecision started = h.decisions().stream()
                .filter(d -> d.getOutcome() == DecisionOutcome.PLACED).findFirst().orElseThrow();
        final String tenant = Map.of("two-nodes", "team-b", "three-nodes", "team-c").get(started.getJobId());
        final Timer waited = h.meters.find("gpupool.queue.wait").tags("pool", "p1", "tenant", tenant).timer();
        assertThat(waited.count()).isEqualTo(1);
        assertThat(waited.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3_000);
    }

    private double gauge(final String name, final String... tags) {
        final Gauge g = h.meters.find(name).tags("pool", "p1").tags(tags).gauge();
        assertThat(g).as(name).isNotNull();
        return g.value();
    }

    private static void blockOn(final CountDownLatch latch) {
        try {
            if (!latch.await(HOLD.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
