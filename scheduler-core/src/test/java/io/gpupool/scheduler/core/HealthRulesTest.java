package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HealthRulesTest {

    private static EngineInput.GpuHealthFact xid(final long ts, final String node, final int gpu, final int xid) {
        return new EngineInput.GpuHealthFact(ts, node, gpu, xid, false, false, false, 60);
    }

    private static ModelCapacity h100(final PoolEngine e) {
        return e.capacity().byModel().get("H100");
    }

    @Test
    void criticalXidTakesTheGpuOutAndCapacityShowsIt() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        e.apply(xid(1, "n0-0", 3, 79));
        final ModelCapacity c = h100(e);
        assertEquals(8, c.total());
        assertEquals(1, c.unhealthy());
        assertEquals(7, c.allocatable());
        assertEquals(7, c.free());
        assertEquals("Xid 79", e.node("n0-0").orElseThrow().gpus().get(3).health());
        final Decision d = e.apply(submit(2, JobSpec.builder("all").gang(1, 8).build())).decisions().get(0);
        assertEquals(ReasonCode.UNHEALTHY_GPUS, d.reason().code());
        assertTrue(d.reason().message().contains("node n0-0 GPU 3 unhealthy (Xid 79)"), d.reason().message());
    }

    @Test
    void nonCriticalXidIsIgnoredAndTheSetIsConfigurable() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        e.apply(xid(1, "n0-0", 0, 13));
        assertEquals(0, h100(e).unhealthy());
        final PoolEngine f = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "critical-xids", "13")), 1, 1, 8);
        f.apply(xid(1, "n0-0", 0, 13));
        assertEquals(1, h100(f).unhealthy());
        f.apply(xid(2, "n0-0", 0, 79));
        assertEquals(0, h100(f).unhealthy(), "79 is not critical in this config");
    }

    @Test
    void eccRemapAndTemperatureRules() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        e.apply(new EngineInput.GpuHealthFact(1, "n0-0", 0, 0, true, false, false, 50));
        e.apply(new EngineInput.GpuHealthFact(1, "n0-0", 1, 0, false, true, false, 50));
        e.apply(new EngineInput.GpuHealthFact(1, "n0-0", 2, 0, false, false, true, 50));
        e.apply(new EngineInput.GpuHealthFact(1, "n0-0", 3, 0, false, false, false, 95));
        e.apply(new EngineInput.GpuHealthFact(1, "n0-0", 4, 0, false, false, false, 85));
        assertEquals(4, h100(e).unhealthy());
        e.apply(EngineInput.GpuHealthFact.healthy(2, "n0-0", 3));
        assertEquals(3, h100(e).unhealthy());
    }

    @Test
    void unhealthyGpusAreNeverAssigned() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.FIRST_FIT), 1, 1, 4);
        e.apply(xid(1, "n0-0", 0, 48));
        e.apply(xid(1, "n0-0", 2, 48));
        final Decision d = e.apply(submit(2, JobSpec.builder("two").gang(1, 2).build())).decisions().get(0);
        assertEquals(List.of(1, 3), d.placement().get(0).gpus());
        final Decision s = e.apply(submit(3, JobSpec.builder("share").share(100, 0).build())).decisions().get(0);
        assertEquals(DecisionKind.QUEUED, s.kind());
    }

    @Test
    void staleTelemetryByStreamTimeAndHeartbeatRecovery() {
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "stale-telemetry-timeout-ms", "1000")), 1, 2, 8);
        e.apply(new EngineInput.NodeHeartbeat(900, "n0-1"));
        e.apply(new EngineInput.ClockTick(1500));
        assertEquals(8, h100(e).unhealthy(), "n0-0 silent since 0");
        assertEquals("telemetry stale", e.node("n0-0").orElseThrow().gpus().get(0).health());
        e.apply(new EngineInput.GpuUtilisationFact(1600, "n0-0", 0, 40));
        assertEquals(0, h100(e).unhealthy());
    }

    @Test
    void jobsOnFailedHardwareAreEvictedAndRequeued() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        e.apply(submit(1, JobSpec.builder("j").gang(1, 8).build()));
        final String node = e.job("j").orElseThrow().placement().get(0).nodeId();
        final EngineOutput out = e.apply(new EngineInput.GpuHealthFact(2, node, 5, 0, true, false, false, 50));
        assertEquals(List.of(DecisionKind.EVICTED, DecisionKind.QUEUED, DecisionKind.PLACED),
                out.decisions().stream().map(Decision::kind).toList());
        assertEquals(ReasonCode.HARDWARE_FAILURE, out.decisions().get(0).reason().code());
        assertEquals(List.of(InstructionKind.EVICT, InstructionKind.ALLOCATE), out.commands().stream().map(NodeInstruction::kind).toList());
        assertFalse(out.decisions().get(2).placement().get(0).nodeId().equals(node));
        assertEquals(1, e.job("j").orElseThrow().evictions());
    }

    @Test
    void evictionWithoutRequeueWhenConfiguredOff() {
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "evict-on-failure", "false")), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("j").gang(1, 8).build()));
        assertTrue(e.apply(xid(2, "n0-0", 1, 79)).decisions().isEmpty(), "reported, not evicted");
        assertEquals(JobState.PLACED, e.job("j").orElseThrow().state());
        assertEquals(1, h100(e).unhealthy());
    }

    @Test
    void flappingLinkExcludesTheNodeFromGangsOnly() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        e.apply(new EngineInput.LinkFact(1, "n0-0", "mlx5_0/1", true, true, false));
        final Decision g = e.apply(submit(2, JobSpec.builder("g").gang(2, 8).build())).decisions().get(0);
        assertEquals(ReasonCode.LINK_EXCLUDED, g.reason().code());
        assertTrue(g.reason().message().contains("n0-0"), g.reason().message());
        final Decision s = e.apply(submit(3, JobSpec.builder("s").gang(1, 8).build())).decisions().get(0);
        assertEquals(DecisionKind.PLACED, s.kind());
        assertFalse(e.node("n0-0").orElseThrow().multiNodeEligible());
    }

    @Test
    void linkDownEvictsGangsOnTheNodeAndRecoveryReadmitsIt() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        e.apply(submit(1, JobSpec.builder("g").gang(2, 4).build()));
        final EngineOutput down = e.apply(new EngineInput.LinkFact(2, "n0-0", "mlx5_0/1", false, false, false));
        assertEquals(ReasonCode.LINK_FAILURE, down.decisions().get(0).reason().code());
        assertEquals(DecisionKind.QUEUED, down.decisions().get(1).kind());
        final EngineOutput up = e.apply(new EngineInput.LinkFact(3, "n0-0", "mlx5_0/1", true, false, false));
        assertEquals(DecisionKind.PLACED, up.decisions().get(0).kind());
    }

    @Test
    void nodeRemovalEvictsItsJobs() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("j").gang(1, 2).build()));
        final EngineOutput out = e.apply(new EngineInput.NodeRemoval(2, "n0-0"));
        assertEquals(ReasonCode.NODE_REMOVED, out.decisions().get(0).reason().code());
        assertEquals(ReasonCode.NO_NODES, e.job("j").orElseThrow().currentReason().code());
        assertTrue(e.capacity().byModel().isEmpty());
    }
}
