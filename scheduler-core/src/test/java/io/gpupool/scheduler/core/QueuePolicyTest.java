package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QueuePolicyTest {

    private static EngineConfig cfg(final String... kv) {
        final Map<String, String> m = new TreeMap<>();
        m.put("pool", "p");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return EngineConfig.fromSettings(m);
    }

    private static EngineInput done(final PoolEngine e, final long ts, final String job) {
        return new EngineInput.JobReport(ts, job, EngineInput.JobEventKind.COMPLETED, e.placementOf(job), "", "");
    }

    private static List<String> placed(final EngineOutput out) {
        return out.decisions().stream().filter(d -> d.kind() == DecisionKind.PLACED).map(Decision::jobId).toList();
    }

    @Test
    void higherClassThenHigherPriorityThenEarliestDeadlineGoFirst() {
        final PoolEngine e = Pools.pool(cfg("preemption", "false", "backfill", "false"), 1, 1, 1);
        e.apply(submit(1, JobSpec.builder("blocker").build()));
        e.apply(submit(2, JobSpec.builder("be").priorityClass(PriorityClass.BEST_EFFORT).build()));
        e.apply(submit(3, JobSpec.builder("batch-low").priority(1).build()));
        e.apply(submit(4, JobSpec.builder("batch-high").priority(5).build()));
        e.apply(submit(5, JobSpec.builder("batch-late").priority(5).deadline(9_000_000, false).build()));
        e.apply(submit(6, JobSpec.builder("batch-soon").priority(5).deadline(8_000_000, false).build()));
        e.apply(submit(7, JobSpec.builder("prod").priorityClass(PriorityClass.PRODUCTION).build()));
        assertEquals(List.of("prod", "batch-soon", "batch-late", "batch-high", "batch-low", "be"),
                e.queuedJobs().stream().map(JobView::jobId).toList());
        assertEquals(List.of("prod"), placed(e.apply(done(e, 8, "blocker"))));
        assertEquals(List.of("batch-soon"), placed(e.apply(done(e, 9, "prod"))));
    }

    @Test
    void deadlinesAreReportedAndRejectedWhenAsked() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 1);
        final Decision r = e.apply(submit(1, JobSpec.builder("late").runtimeEstimateMs(1_000).deadline(500, true).build()))
                .decisions().get(0);
        assertEquals(DecisionKind.REJECTED, r.kind());
        assertEquals(ReasonCode.DEADLINE_UNREACHABLE, r.reason().code());
        e.apply(submit(2, JobSpec.builder("run").runtimeEstimateMs(10_000).build()));
        e.apply(submit(3, JobSpec.builder("wait").runtimeEstimateMs(1_000).deadline(5_000, false).build()));
        final EngineOutput tick = e.apply(new EngineInput.ClockTick(4_500));
        assertEquals(ReasonCode.DEADLINE_UNREACHABLE, tick.decisions().get(0).reason().code());
        assertEquals(DecisionKind.QUEUED, tick.decisions().get(0).kind());
        assertTrue(e.apply(new EngineInput.ClockTick(4_600)).decisions().isEmpty(), "reported once");
    }

    @Test
    void tenantCapAndGuaranteedQuota() {
        final PoolEngine e = Pools.pool(cfg("tenant.a.max-gpus", "2", "tenant.b.guaranteed-gpus", "2",
                "backfill", "false", "preemption", "false"), 1, 1, 4);
        e.apply(submit(1, JobSpec.builder("a1").tenant("a").gang(1, 2).build()));
        final Decision capped = e.apply(submit(2, JobSpec.builder("a2").tenant("a").build())).decisions().get(0);
        assertEquals(ReasonCode.QUOTA_EXHAUSTED, capped.reason().code());
        e.apply(submit(3, JobSpec.builder("c1").tenant("c").gang(1, 2).build()));
        e.apply(submit(4, JobSpec.builder("c2").tenant("c").gang(1, 2).build()));
        e.apply(submit(5, JobSpec.builder("b1").tenant("b").gang(1, 2).build()));
        // b is under its guarantee: it goes before c's earlier job
        assertEquals("b1", e.queuedJobs().get(0).jobId());
        assertEquals(List.of("b1"), placed(e.apply(done(e, 6, "c1"))));
    }

    @Test
    void easyBackfillLetsShortJobsPassButNeverTheReservation() {
        final PoolEngine e = Pools.pool(cfg("preemption", "false"), 1, 1, 8);
        e.apply(submit(0, JobSpec.builder("running").gang(1, 4).runtimeEstimateMs(100_000).build()));
        e.apply(submit(1, JobSpec.builder("head").gang(1, 8).runtimeEstimateMs(10_000).build()));
        final Reservation r = e.reservation().orElseThrow();
        assertEquals("head", r.jobId());
        assertEquals(100_000, r.startAtMs());
        assertEquals(List.of("short"), placed(e.apply(submit(2, JobSpec.builder("short").gang(1, 4).runtimeEstimateMs(50_000).build()))));
        final EngineOutput lng = e.apply(submit(3, JobSpec.builder("long").gang(1, 4).runtimeEstimateMs(500_000).build()));
        assertTrue(placed(lng).isEmpty());
        e.apply(done(e, 50_000, "short"));
        assertEquals(JobState.QUEUED, e.job("long").orElseThrow().state(), "long still waits: it would delay head");
        assertEquals(ReasonCode.RESERVED_FOR_HEAD_OF_QUEUE, e.job("long").orElseThrow().currentReason().code());
        assertEquals(List.of("head"), placed(e.apply(done(e, 100_000, "running"))));
    }

    @Test
    void withoutBackfillNothingPassesTheBlockedHead() {
        final PoolEngine e = Pools.pool(cfg("backfill", "false", "preemption", "false"), 1, 1, 8);
        e.apply(submit(0, JobSpec.builder("running").gang(1, 4).build()));
        e.apply(submit(1, JobSpec.builder("head").gang(1, 8).build()));
        assertTrue(placed(e.apply(submit(2, JobSpec.builder("short").gang(1, 1).runtimeEstimateMs(1).build()))).isEmpty());
    }

    @Test
    void learnedEstimatesComeFromFinishedJobsOfTheSameTenantAndName() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        long ts = 0;
        for (int i = 0; i < 5; i++) {
            e.apply(submit(ts, JobSpec.builder("train-" + i).tenant("t").name("train").build()));
            ts += 1_000 * (i + 1);
            e.apply(done(e, ts, "train-" + i));
        }
        e.apply(submit(ts, JobSpec.builder("next").tenant("t").name("train").build()));
        assertEquals(4_000, e.job("next").orElseThrow().runtimeEstimateMs(), "80th percentile of 1..5 s");
        e.apply(submit(ts, JobSpec.builder("other").tenant("u").name("train").build()));
        assertEquals(e.config().defaultRuntimeMs(), e.job("other").orElseThrow().runtimeEstimateMs());
    }

    @Test
    void productionPreemptsBestEffortAndRecordsWhoPreemptedWhom() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("keep").priorityClass(PriorityClass.BEST_EFFORT).gang(1, 4).build()));
        e.apply(submit(2, JobSpec.builder("victim").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(1, 4).build()));
        final EngineOutput out = e.apply(submit(3, JobSpec.builder("prod").priorityClass(PriorityClass.PRODUCTION).gang(1, 4).build()));
        final Decision ev = out.decisions().get(0);
        assertEquals(DecisionKind.EVICTED, ev.kind());
        assertEquals("victim", ev.jobId());
        assertEquals("prod", ev.causedBy());
        assertEquals(ReasonCode.PREEMPTED, ev.reason().code());
        assertEquals(List.of("prod"), placed(out));
        assertEquals("prod", e.job("victim").orElseThrow().preemptedBy());
        assertEquals(JobState.QUEUED, e.job("victim").orElseThrow().state());
        assertEquals(JobState.PLACED, e.job("keep").orElseThrow().state(), "not preemptible, never evicted");
        // a second production job finds nothing preemptible: it waits, nothing is evicted
        final EngineOutput second = e.apply(submit(4, JobSpec.builder("prod2").priorityClass(PriorityClass.PRODUCTION).gang(1, 4).build()));
        assertFalse(second.decisions().stream().anyMatch(d -> d.kind() == DecisionKind.EVICTED));
    }

    @Test
    void preemptionFreesOneLeafAndNeverEvictsAcrossLeavesInVain() {
        final PoolEngine e = Pools.pool(cfg(), 2, 2, 8);
        final JobSpec.Builder be = JobSpec.builder("x").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true);
        e.apply(submit(1, JobSpec.builder("pin").priorityClass(PriorityClass.BEST_EFFORT).gang(1, 8).build())); // n0-0
        e.apply(submit(2, JobSpec.builder("v0").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(1, 8).build())); // n0-1
        e.apply(submit(3, JobSpec.builder("v1").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(1, 4).build()));
        e.apply(submit(4, JobSpec.builder("v2").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(1, 8).build()));
        e.apply(submit(5, JobSpec.builder("v3").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(1, 4).build()));
        assertTrue(be != null);
        final EngineOutput out = e.apply(submit(6, JobSpec.builder("gang").priorityClass(PriorityClass.PRODUCTION).gang(2, 8).build()));
        final List<String> evicted = out.decisions().stream().filter(d -> d.kind() == DecisionKind.EVICTED).map(Decision::jobId).sorted().toList();
        final Decision p = out.decisions().stream().filter(d -> d.kind() == DecisionKind.PLACED && d.jobId().equals("gang")).findFirst().orElseThrow();
        final List<String> gangNodes = p.placement().stream().map(PlacementPart::nodeId).toList();
        assertEquals(List.of("n1-0", "n1-1"), gangNodes.stream().sorted().toList(), "l0 holds a job that cannot be evicted");
        assertFalse(evicted.contains("v0"), "never evict on a leaf that still cannot take the gang");
        for (final String v : evicted) {
            assertTrue(e.job(v).orElseThrow().lastDecision().placement().isEmpty()
                    || e.job(v).orElseThrow().preemptedBy().equals("gang"));
        }

        // the Kueue 5243 case: no leaf can be freed -> nothing is evicted at all
        final PoolEngine f = Pools.pool(cfg(), 2, 2, 8);
        f.apply(submit(1, JobSpec.builder("pin0").priorityClass(PriorityClass.BEST_EFFORT).gang(1, 8).build()));
        f.apply(submit(2, JobSpec.builder("v0").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(1, 8).build()));
        f.apply(submit(3, JobSpec.builder("pin1").priorityClass(PriorityClass.BEST_EFFORT).gang(1, 8).build()));
        f.apply(submit(4, JobSpec.builder("v1").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(1, 8).build()));
        final EngineOutput none = f.apply(submit(5, JobSpec.builder("gang").priorityClass(PriorityClass.PRODUCTION).gang(2, 8).build()));
        assertEquals(List.of(DecisionKind.QUEUED), none.decisions().stream().map(Decision::kind).toList());
    }

    @Test
    void tenantUnderItsGuaranteeReclaimsBorrowedGpus() {
        final PoolEngine e = Pools.pool(cfg("tenant.a.guaranteed-gpus", "4"), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("b1").tenant("b").preemptible(true).gang(1, 4).build()));
        e.apply(submit(2, JobSpec.builder("b2").tenant("b").preemptible(true).gang(1, 4).build()));
        final EngineOutput out = e.apply(submit(3, JobSpec.builder("a1").tenant("a").gang(1, 4).build()));
        assertEquals(DecisionKind.EVICTED, out.decisions().get(0).kind());
        assertEquals(List.of("a1"), placed(out));
    }

    @Test
    void consolidationMovesScatteredWorkBoundedly() {
        final PoolEngine e = Pools.pool(cfg("consolidation-max-evictions", "2"), 1, 2, 8);
        e.apply(submit(1, JobSpec.builder("s0").preemptible(true).build()));
        e.apply(submit(2, JobSpec.builder("big0").gang(1, 7).build()));
        e.apply(submit(3, JobSpec.builder("s1").preemptible(true).build()));
        // n0-0: s0 + big0 (full); n0-1: s1 -> 7 free. An 8-GPU job waits only because s1 sits there? no: 7 free total.
        e.apply(done(e, 4, "s0")); // n0-0 now 1 free, n0-1 7 free: 8 free, scattered
        final EngineOutput out = e.apply(submit(5, JobSpec.builder("eight").gang(1, 8).build()));
        assertEquals(List.of(DecisionKind.EVICTED, DecisionKind.QUEUED, DecisionKind.PLACED, DecisionKind.PLACED),
                out.decisions().stream().map(Decision::kind).toList());
        assertEquals(ReasonCode.CONSOLIDATED, out.decisions().get(0).reason().code());
        assertEquals(List.of("eight", "s1"), placed(out));

        final PoolEngine off = Pools.pool(cfg(), 1, 2, 8);
        off.apply(submit(1, JobSpec.builder("s0").preemptible(true).build()));
        off.apply(submit(2, JobSpec.builder("big0").gang(1, 7).build()));
        off.apply(submit(3, JobSpec.builder("s1").preemptible(true).build()));
        off.apply(done(off, 4, "s0"));
        assertEquals(List.of(DecisionKind.QUEUED),
                off.apply(submit(5, JobSpec.builder("eight").gang(1, 8).build())).decisions().stream().map(Decision::kind).toList());
    }
}
