package io.gpupool.scheduler.core;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigAndViewsTest {

    @Test
    void settingsBuildAConfigAndTyposAreErrors() {
        final EngineConfig c = EngineConfig.fromSettings(Map.of("pool", "east", "policy", "fgd",
                "stale-telemetry-timeout-ms", "5000", "tenant.ml.guaranteed-gpus", "16", "tenant.ml.weight", "2",
                "critical-xids", "79,48", "backfill", "off"));
        assertEquals("east", c.poolId());
        assertEquals(ScoringPolicy.FGD, c.policy());
        assertEquals(5000, c.staleTelemetryTimeoutMs());
        assertEquals(new TenantConfig(16, 2.0, Integer.MAX_VALUE), c.tenant("ml"));
        assertEquals(List.of(48, 79), List.copyOf(c.criticalXids()));
        assertEquals(false, c.backfill());
        final IllegalArgumentException typo = assertThrows(IllegalArgumentException.class,
                () -> EngineConfig.fromSettings(Map.of("polcy", "fgd")));
        assertTrue(typo.getMessage().contains("unknown engine setting 'polcy'"), typo.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.fromSettings(Map.of("policy", "worst-fit")));
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.fromSettings(Map.of("backfill", "maybe")));
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.fromSettings(Map.of("tenant.x.cap", "1")));
    }

    @Test
    void theAllocationFailpointThrowsMidGangOnlyForItsJob() {
        assertEquals(new Failpoint("j-7", 1), EngineConfig.fromSettings(Map.of("failpoint.allocate", "j-7:1")).failpoint());
        assertEquals(Failpoint.NONE, EngineConfig.fromSettings(Map.of()).failpoint());
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> EngineConfig.fromSettings(Map.of("failpoint.allocate", "j-7")));
        assertTrue(bad.getMessage().contains("JOB_ID:PARTS"), bad.getMessage());

        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "failpoint.allocate", "g:1")), 1, 2, 8);
        e.apply(submit(1, JobSpec.builder("other").gang(2, 4).build())); // another job: no failure
        final IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> e.apply(submit(2, JobSpec.builder("g").gang(2, 4).build())));
        assertTrue(thrown.getMessage().contains("after 1 part"), thrown.getMessage());
    }

    @Test
    void weightedBestFitCountsCpuLeftToo() {
        final PoolEngine gpuFirst = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        final PoolEngine weighted = new PoolEngine(EngineConfig.fromSettings(Map.of("pool", "p", "best-fit-cpu-weight", "0.5")));
        for (final PoolEngine e : new PoolEngine[] {gpuFirst, weighted}) {
            e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("cpu-poor", 8_000, 64_000, 4, "T4")));
            e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("cpu-rich", 96_000, 64_000, 3, "T4")));
        }
        // GPU-first: 3-GPU node is tighter. Weighted: the 3-GPU node keeps 88 cores, the 4-GPU node 0.
        final JobSpec j = JobSpec.builder("j").gang(1, 1).cpuMilli(8_000).build();
        assertEquals("cpu-rich", gpuFirst.apply(submit(1, j)).decisions().get(0).placement().get(0).nodeId());
        assertEquals("cpu-poor", weighted.apply(submit(1, j)).decisions().get(0).placement().get(0).nodeId());
    }

    @Test
    void viewsReportCapacityQueueAndJobs() {
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "preemption", "false")), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("a").tenant("t1").gang(1, 6).build()));
        e.apply(submit(2, JobSpec.builder("b").tenant("t2").gang(1, 4).priorityClass(PriorityClass.PRODUCTION).build()));
        e.apply(submit(3, JobSpec.builder("c").tenant("t2").gang(1, 4).build()));
        final String node = e.job("a").orElseThrow().placement().get(0).nodeId();
        e.apply(new EngineInput.GpuUtilisationFact(4, node, 0, 90));
        e.apply(new EngineInput.GpuUtilisationFact(4, node, 1, 0));
        final ModelCapacity c = e.capacity().byModel().get("H100");
        assertEquals(8, c.total());
        assertEquals(6, c.allocated());
        assertEquals(6000, c.allocatedMilli());
        assertEquals(1, c.busy(), "allocated and really working");
        assertEquals(2, c.free());
        final QueueDepth q = e.queueDepth();
        assertEquals(2, q.total());
        assertEquals(1, q.byClass().get(PriorityClass.PRODUCTION));
        assertEquals(2, q.byTenant().get("t2"));
        final JobView b = e.job("b").orElseThrow();
        assertEquals(JobState.QUEUED, b.state());
        assertEquals(ReasonCode.INSUFFICIENT_FREE_GPUS, b.currentReason().code());
        assertEquals(DecisionKind.QUEUED, b.lastDecision().kind());
        assertEquals(1, e.nodes().size());
        assertEquals(List.of("a"), e.node(node).orElseThrow().jobs());
        final double f = e.fragmentation();
        assertTrue(f >= 0 && f <= 1, "fragmentation " + f);
    }

    @Test
    void factsAboutUnknownNodesOrGpusChangeNothing() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        final byte[] before = e.snapshot();
        assertTrue(e.apply(new EngineInput.GpuHealthFact(1, "nope", 0, 79, false, false, false, 50)).isEmpty());
        assertTrue(e.apply(new EngineInput.GpuHealthFact(1, "n0-0", 99, 79, false, false, false, 50)).isEmpty());
        assertTrue(e.apply(new EngineInput.JobReport(1, "ghost", EngineInput.JobEventKind.COMPLETED, "p-1", "", "")).isEmpty());
        e.apply(new EngineInput.ClockTick(0));
        assertEquals(before.length, e.snapshot().length);
    }

    @Test
    void corruptSnapshotsAreRefusedClearly() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        final byte[] snap = e.snapshot();
        final byte[] cut = Arrays.copyOf(snap, snap.length / 2);
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> PoolEngine.restore(cut, Pools.config(ScoringPolicy.BEST_FIT)));
        assertTrue(ex.getMessage().contains("truncated or corrupt"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PoolEngine.restore(new byte[] {1, 2, 3, 4, 5, 6, 7, 8},
                Pools.config(ScoringPolicy.BEST_FIT)));
    }
}
