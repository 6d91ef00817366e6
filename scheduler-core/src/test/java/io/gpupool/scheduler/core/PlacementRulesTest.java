package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

import static io.gpupool.scheduler.core.Pools.of;
import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlacementRulesTest {

    private static Decision only(final EngineOutput out) {
        assertEquals(1, out.decisions().size(), out.decisions().toString());
        return out.decisions().get(0);
    }

    @Test
    void singleGpuJobIsPlacedWithAnAllocateCommand() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        final EngineOutput out = e.apply(submit(5, JobSpec.builder("j1").build()));
        final Decision d = only(out);
        assertEquals(DecisionKind.PLACED, d.kind());
        assertEquals("p-1", d.decisionId());
        assertEquals(5, d.timestampMs());
        assertEquals(1, d.placement().get(0).gpus().size());
        assertEquals(InstructionKind.ALLOCATE, out.commands().get(0).kind());
        assertEquals("best-fit", d.policy());
        assertTrue(d.reason().message().startsWith("placed on n0-"), d.reason().message());
    }

    @Test
    void bestFitPacksOntoTheFullestNodeFirstFitTakesPoolOrder() {
        for (final ScoringPolicy p : List.of(ScoringPolicy.BEST_FIT, ScoringPolicy.FIRST_FIT)) {
            final PoolEngine e = Pools.pool(Pools.config(p), 1, 3, 8);
            e.apply(submit(1, JobSpec.builder("big").gang(1, 6).build())); // n0-0 keeps 2 free
            e.apply(submit(2, JobSpec.builder("mid").gang(1, 4).build()));
            final Decision d = only(e.apply(submit(3, JobSpec.builder("one").build())));
            assertEquals("n0-0", d.placement().get(0).nodeId(), p.policyName());
        }
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 3, 8);
        e.apply(submit(1, JobSpec.builder("a").gang(1, 4).build())); // n0-0: 4 free
        e.apply(submit(2, JobSpec.builder("b").gang(1, 7).build())); // n0-1: 1 free
        final Decision d = only(e.apply(submit(3, JobSpec.builder("c").build())));
        assertEquals("n0-1", d.placement().get(0).nodeId());
    }

    @Test
    void gangIsAllOrNothingOnOneLeaf() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 2, 3, 8);
        e.apply(submit(1, JobSpec.builder("a").gang(1, 8).build())); // n0-0 full
        e.apply(submit(1, JobSpec.builder("b").gang(1, 1).build())); // n0-1 keeps 7
        final Decision d = only(e.apply(submit(2, JobSpec.builder("g").gang(2, 8).build())));
        assertEquals(DecisionKind.PLACED, d.kind());
        assertEquals(List.of("n1-0", "n1-1"), d.placement().stream().map(PlacementPart::nodeId).toList());
        final Decision q = only(e.apply(submit(3, JobSpec.builder("g2").gang(2, 8).build())));
        assertEquals(DecisionKind.QUEUED, q.kind());
        assertEquals(ReasonCode.NO_LEAF_FOR_GANG, q.reason().code());
        assertEquals("1", q.reason().evidence().get("best_leaf_nodes"));
        // nothing was allocated for the waiting gang
        assertEquals(25, e.capacity().byModel().get("H100").allocated());
    }

    @Test
    void preferredLeafFallsBackToSpineWhenNoLeafHoldsTheGang() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        e.apply(new EngineInput.NodeUpsert(0, Pools.node("a", "l0", 8)));
        e.apply(new EngineInput.NodeUpsert(0, Pools.node("b", "l1", 8)));
        final Decision req = only(e.apply(submit(4, JobSpec.builder("req").gang(2, 8).build())));
        assertEquals(DecisionKind.QUEUED, req.kind());
        e.apply(new EngineInput.CancelJob(5, "req", ""));
        final Decision pref = only(e.apply(submit(5, JobSpec.builder("pref").gang(2, 8)
                .topology(GangScope.LEAF, false).build())));
        assertEquals(DecisionKind.PLACED, pref.kind());
        assertTrue(pref.reason().message().contains("(spine"), pref.reason().message());
    }

    @Test
    void gangsPreferLeavesWithoutUplinkCongestion() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 2, 2, 8);
        e.apply(new EngineInput.LeafUplinkFact(1, "l0", true, 95));
        final Decision d = only(e.apply(submit(2, JobSpec.builder("g").gang(2, 8).build())));
        assertEquals("n1-0", d.placement().get(0).nodeId());
    }

    @Test
    void sharesPackOntoOneGpuAndRespectGpuMemory() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 2);
        final Decision a = only(e.apply(submit(1, JobSpec.builder("a").share(500, 40_000).build())));
        final Decision b = only(e.apply(submit(2, JobSpec.builder("b").share(300, 40_000).build())));
        assertEquals(a.placement().get(0).gpus(), b.placement().get(0).gpus());
        assertEquals(300, b.placement().get(0).gpuMilli());
        // 200 milli left on that GPU but only 1,559 MiB of memory: goes to the other GPU
        final Decision c = only(e.apply(submit(3, JobSpec.builder("c").share(100, 10_000).build())));
        assertTrue(!c.placement().get(0).gpus().equals(a.placement().get(0).gpus()));
        // a whole-GPU job cannot take a GPU that holds shares
        final Decision w = only(e.apply(submit(4, JobSpec.builder("w").gang(1, 1).build())));
        assertEquals(DecisionKind.QUEUED, w.kind());
    }

    @Test
    void cpuMemoryModelAndNetworkAreFilters() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("small", 8_000, 64_000, 8, "T4")));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("big", 96_000, 512_000, 8, "V100M32")));
        assertEquals("big", only(e.apply(submit(1, JobSpec.builder("cpu").cpuMilli(32_000).build())))
                .placement().get(0).nodeId());
        assertEquals("small", only(e.apply(submit(2, JobSpec.builder("t4").models("T4").build())))
                .placement().get(0).nodeId());
        final Decision ib = only(e.apply(submit(3, JobSpec.builder("ib").gang(2, 1).network(Network.INFINIBAND)
                .topology(GangScope.POOL, true).build())));
        assertEquals(DecisionKind.REJECTED, ib.kind()); // gang of 2 on one model: only one node per model
        final Decision q = only(e.apply(submit(4, JobSpec.builder("mem").memoryMib(600_000).build())));
        assertEquals(DecisionKind.REJECTED, q.kind());
        assertEquals(ReasonCode.EXCEEDS_POOL_CAPACITY, q.reason().code());
    }

    @Test
    void networkRequirementFiltersNodes() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("plain", 64_000, 256_000, 8, "H100")));
        e.apply(new EngineInput.NodeUpsert(0, Pools.node("ib", "l0", 8)));
        assertEquals("ib", only(e.apply(submit(1, JobSpec.builder("a").gang(1, 8).network(Network.INFINIBAND).build())))
                .placement().get(0).nodeId());
        final Decision q = only(e.apply(submit(2, JobSpec.builder("b").gang(1, 8).network(Network.ROCE).build())));
        assertEquals(ReasonCode.NETWORK_UNAVAILABLE, q.reason().code());
    }

    @Test
    void nvlinkGroupOfTheRightSizeIsPreferred() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        e.apply(new EngineInput.NodeUpsert(0, Pools.node("n", "l0", "s0", 8, "H100", 4)));
        final Decision one = only(e.apply(submit(1, JobSpec.builder("one").build())));
        assertEquals(List.of(0), one.placement().get(0).gpus());
        // group 0 has 3 free, group 1 has 4 free: a 4-GPU job takes group 1 whole
        final Decision four = only(e.apply(submit(2, JobSpec.builder("four").gang(1, 4).build())));
        assertEquals(List.of(4, 5, 6, 7), four.placement().get(0).gpus());
        final Decision three = only(e.apply(submit(3, JobSpec.builder("three").gang(1, 3).build())));
        assertEquals(List.of(1, 2, 3), three.placement().get(0).gpus());
    }

    @Test
    void neverFitsIsRejectedWithTheReason() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 2, 2, 8);
        assertEquals(ReasonCode.UNKNOWN_MODEL, only(e.apply(submit(1, JobSpec.builder("a").models("B200").build())))
                .reason().code());
        assertEquals(ReasonCode.EXCEEDS_POOL_CAPACITY, only(e.apply(submit(1, JobSpec.builder("b").gang(5, 8).build())))
                .reason().code());
        assertEquals(ReasonCode.GANG_LARGER_THAN_POOL, only(e.apply(submit(1, JobSpec.builder("c").gang(5, 4).build())))
                .reason().code());
        assertEquals(ReasonCode.INVALID_REQUEST, only(e.apply(submit(1, JobSpec.builder("d").gang(0, 8).build())))
                .reason().code());
        assertEquals(ReasonCode.INVALID_REQUEST, only(e.apply(submit(1, JobSpec.builder("e").gpuMilli(1500).build())))
                .reason().code());
        assertEquals(ReasonCode.EXCEEDS_POOL_CAPACITY, only(e.apply(submit(1, JobSpec.builder("f").gang(1, 9).build())))
                .reason().code());
        assertEquals(DecisionKind.REJECTED, e.job("f").orElseThrow().lastDecision().kind());
        assertEquals(JobState.REJECTED, e.job("f").orElseThrow().state());
    }

    @Test
    void placeNowOrRejectNeverQueues() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.FGD), 1, 1, 8);
        assertEquals(DecisionKind.PLACED, only(e.apply(submit(1, JobSpec.builder("a").gang(1, 6).placeNowOrReject(true).build()))).kind());
        final Decision d = only(e.apply(submit(2, JobSpec.builder("b").gang(1, 4).placeNowOrReject(true).build())));
        assertEquals(DecisionKind.REJECTED, d.kind());
        assertEquals(ReasonCode.INSUFFICIENT_FREE_GPUS, d.reason().code());
        assertEquals(0, e.queueDepth().total());
    }

    @Test
    void nodesWithoutFabricInformationAreAccepted() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.FGD));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("a", 64_000, 256_000, 8, "G2")));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("b", 64_000, 256_000, 2, "T4")));
        final Decision d = only(e.apply(submit(1, JobSpec.builder("p").gang(1, 2).cpuMilli(4_000).build())));
        assertEquals(DecisionKind.PLACED, d.kind());
        assertEquals(NodeSpec.DEFAULT_LEAF, e.node("a").orElseThrow().leaf());
    }

    @Test
    void queuedJobIsPlacedWhenCapacityIsReleased() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("a").gang(1, 8).build()));
        final Decision q = only(e.apply(submit(2, JobSpec.builder("b").gang(1, 4).build())));
        assertEquals(ReasonCode.INSUFFICIENT_FREE_GPUS, q.reason().code());
        assertEquals(ReasonCode.INSUFFICIENT_FREE_GPUS, e.job("b").orElseThrow().currentReason().code());
        final EngineOutput out = e.apply(new EngineInput.JobReport(3, "a", EngineInput.JobEventKind.COMPLETED, e.placementOf("a"), "", ""));
        assertEquals(List.of(DecisionKind.RELEASED, DecisionKind.PLACED), out.decisions().stream().map(Decision::kind).toList());
        assertEquals(List.of(InstructionKind.RELEASE, InstructionKind.ALLOCATE), out.commands().stream().map(NodeInstruction::kind).toList());
        assertEquals(JobState.COMPLETED, e.job("a").orElseThrow().state());
    }

    @Test
    void cancellingQueuedAndRunningJobs() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("run").gang(1, 8).build()));
        e.apply(new EngineInput.JobReport(2, "run", EngineInput.JobEventKind.STARTED, e.placementOf("run"), "", ""));
        e.apply(submit(3, JobSpec.builder("wait").gang(1, 8).build()));
        final Decision cq = only(e.apply(new EngineInput.CancelJob(4, "wait", "user")));
        assertEquals(DecisionKind.CANCELLED, cq.kind());
        assertEquals(0, e.queueDepth().total());
        final EngineOutput out = e.apply(new EngineInput.CancelJob(5, "run", ""));
        assertEquals(DecisionKind.CANCELLED, out.decisions().get(0).kind());
        assertEquals(InstructionKind.EVICT, out.commands().get(0).kind());
        assertEquals(8, e.capacity().byModel().get("H100").free());
        assertTrue(e.apply(new EngineInput.CancelJob(6, "run", "")).isEmpty(), "a second cancel changes nothing");
    }

    @Test
    void duplicateSubmitDoesNotCreateASecondJob() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("a").build()));
        final Decision d = only(e.apply(submit(2, JobSpec.builder("a").build())));
        assertEquals(ReasonCode.DUPLICATE_JOB, d.reason().code());
        assertEquals(1, e.capacity().byModel().get("H100").allocated());
    }

    @Test
    void fgdAvoidsThePlacementThatStrandsGpusForTheRecentMix() {
        // The mix: 1-GPU jobs with 8 cores. Node a has few cores left; a 4-core job there would leave
        // a's 7 idle GPUs unusable by that mix. Best-fit (GPU-first) does not see it; fgd does.
        final Map<ScoringPolicy, String> chosen = new TreeMap<>();
        for (final ScoringPolicy p : List.of(ScoringPolicy.BEST_FIT, ScoringPolicy.FGD)) {
            final PoolEngine e = new PoolEngine(Pools.config(p));
            e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("a", 10_000, 256_000, 8, "V100")));
            e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("b", 64_000, 256_000, 8, "V100")));
            for (int i = 0; i < 30; i++) { // the mix, as rejected arrivals (too much CPU): shapes only
                e.apply(submit(1, JobSpec.builder("m" + i).gang(1, 1).cpuMilli(8_000).memoryMib(999_999)
                        .placeNowOrReject(true).build()));
            }
            final Decision d = only(e.apply(submit(2, JobSpec.builder("x").gang(1, 1).cpuMilli(4_000).build())));
            chosen.put(p, d.placement().get(0).nodeId());
            assertEquals(p == ScoringPolicy.BEST_FIT, e.fragmentation() > 0, "stranded GPUs show as fragmentation");
        }
        assertEquals("a", chosen.get(ScoringPolicy.BEST_FIT));
        assertEquals("b", chosen.get(ScoringPolicy.FGD));
    }
}
