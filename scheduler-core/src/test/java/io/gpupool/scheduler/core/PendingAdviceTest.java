package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * "Why pending" with a way out: each change the advice suggests is applied (the job cancelled and asked for
 * again with the change) and the engine must then place it; where nothing helps, the advice says so.
 */
class PendingAdviceTest {
    private static final long MIN = 60_000;

    @Test
    void aFullInfinibandIslandIsSaidToBeFullWithItsHolderAndRoceIsSuggested() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        for (int i = 0; i < 2; i++) {
            e.apply(new EngineInput.NodeUpsert(0, node("ib-" + i, "leaf-ib", "H100", HcaLinkLayer.INFINIBAND)));
            e.apply(new EngineInput.NodeUpsert(0, node("roce-" + i, "leaf-roce", "H100", HcaLinkLayer.ETHERNET)));
        }
        e.apply(Pools.submit(1_000, JobSpec.builder("holder").gang(2, 8).network(Network.INFINIBAND)
                .runtimeEstimateMs(30 * MIN).build()));
        final JobSpec x = JobSpec.builder("x").gang(2, 8).topology(GangScope.POOL, false).network(Network.INFINIBAND).build();
        e.apply(Pools.submit(2_000, x));

        final PendingAdvice a = advice(e, "x");
        assertEquals(ReasonCode.NETWORK_UNAVAILABLE, e.job("x").orElseThrow().currentReason().code());
        assertEquals(List.of("infiniband is not missing but full: 2 nodes have it, 0 with 8 GPUs free"), a.notes());
        assertEquals(List.of("holder"), ids(a.waitingFor()));
        assertEquals(1_000 + 30 * MIN, a.waitingFor().get(0).expectedEndMs());
        assertEquals(List.of("ib-0", "ib-1"), a.waitingFor().get(0).nodes());
        final PendingAdvice.Change net = only(a, PendingAdvice.ChangeKind.NETWORK);
        assertEquals("roce", net.to());
        assertEquals("network roce instead of infiniband", net.text());

        assertPlacedWith(e, x, JobSpec.builder("x2").gang(2, 8).topology(GangScope.POOL, false).network(Network.ROCE).build());
    }

    @Test
    void aGangThatNoLeafHoldsIsToldThatAPreferredTopologyRunsNow() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        e.apply(new EngineInput.NodeUpsert(0, Pools.node("n0", "l0", 8)));
        e.apply(new EngineInput.NodeUpsert(0, Pools.node("n1", "l1", 8)));
        final JobSpec x = JobSpec.builder("x").gang(2, 8).topology(GangScope.LEAF, true).build();
        e.apply(Pools.submit(1_000, x));

        final PendingAdvice a = advice(e, "x");
        assertEquals(ReasonCode.NO_LEAF_FOR_GANG, e.job("x").orElseThrow().currentReason().code());
        final PendingAdvice.Change t = only(a, PendingAdvice.ChangeKind.TOPOLOGY_PREFERRED);
        assertEquals("one leaf preferred instead of required", t.text());
        assertEquals(List.of(), a.waitingFor(), "no end of a running job frees a leaf of two nodes");
        assertFalse(a.fitsNow());

        assertPlacedWith(e, x, JobSpec.builder("x2").gang(2, 8).topology(GangScope.LEAF, false).build());
    }

    @Test
    void fewerGpusOnOneNodeAndTheJobThatHoldsTheRestAreNamed() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        e.apply(Pools.submit(1_000, JobSpec.builder("six").gang(1, 6).runtimeEstimateMs(10 * MIN).build()));
        e.apply(Pools.submit(2_000, JobSpec.builder("four").gang(1, 4).runtimeEstimateMs(20 * MIN).build()));
        final JobSpec x = JobSpec.builder("x").gang(1, 8).build();
        e.apply(Pools.submit(3_000, x));

        final PendingAdvice a = advice(e, "x");
        final PendingAdvice.Change fewer = only(a, PendingAdvice.ChangeKind.FEWER_GPUS);
        assertEquals("4", fewer.to());
        assertEquals(List.of("six"), ids(a.waitingFor()), "the job ending first frees a whole node");
        assertEquals(1_000 + 10 * MIN, a.waitingFor().get(0).expectedEndMs());
        assertEquals(1, a.waitingForCount());

        assertPlacedWith(e, x, JobSpec.builder("x2").gang(1, 4).build());
    }

    @Test
    void aGangIsToldHowManyNodesRunNow() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 3, 8);
        e.apply(Pools.submit(1_000, JobSpec.builder("one").gang(1, 8).runtimeEstimateMs(10 * MIN).build()));
        final JobSpec x = JobSpec.builder("x").gang(3, 8).build();
        e.apply(Pools.submit(2_000, x));

        final PendingAdvice a = advice(e, "x");
        final PendingAdvice.Change fewer = only(a, PendingAdvice.ChangeKind.FEWER_NODES);
        assertEquals("2", fewer.to());
        assertEquals("2 nodes of 8 GPUs instead of 3", fewer.text());
        assertEquals(List.of("one"), ids(a.waitingFor()));

        assertPlacedWith(e, x, JobSpec.builder("x2").gang(2, 8).build());
    }

    @Test
    void anotherModelIsSuggestedWhenTheOneAskedForIsTaken() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        e.apply(new EngineInput.NodeUpsert(0, Pools.node("h", "l0", "s0", 8, "H100", 8)));
        e.apply(new EngineInput.NodeUpsert(0, Pools.node("a", "l0", "s0", 8, "A100", 8)));
        e.apply(Pools.submit(1_000, JobSpec.builder("h100").gang(1, 8).models("H100").build()));
        final JobSpec x = JobSpec.builder("x").gang(1, 8).models("H100").build();
        e.apply(Pools.submit(2_000, x));

        final PendingAdvice.Change m = only(advice(e, "x"), PendingAdvice.ChangeKind.MODEL);
        assertEquals("A100", m.to());
        assertEquals("GPU model A100 instead of H100", m.text());

        assertPlacedWith(e, x, JobSpec.builder("x2").gang(1, 8).models("A100").build());
    }

    @Test
    void aJobHeldBackByTheReservationIsToldTheEstimateThatBackfills() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        e.apply(Pools.submit(1_000, JobSpec.builder("running").gang(1, 8).runtimeEstimateMs(10 * MIN).build()));
        e.apply(Pools.submit(2_000, JobSpec.builder("head").gang(2, 8).build()));
        final JobSpec x = JobSpec.builder("x").gang(1, 8).runtimeEstimateMs(60 * MIN).build();
        e.apply(Pools.submit(3_000, x));

        assertEquals(ReasonCode.RESERVED_FOR_HEAD_OF_QUEUE, e.job("x").orElseThrow().currentReason().code());
        final PendingAdvice a = advice(e, "x");
        assertEquals(List.of("head"), a.jobsAhead());
        final PendingAdvice.Change shorter = only(a, PendingAdvice.ChangeKind.SHORTER_ESTIMATE);
        final long most = 1_000 + 10 * MIN - 3_000;
        assertEquals(Long.toString(most), shorter.to());
        assertEquals(List.of(), ids(a.waitingFor()), "it fits now: it waits for no running job");
        assertTrue(a.fitsNow());

        assertPlacedWith(e, x, JobSpec.builder("x2").gang(1, 8).runtimeEstimateMs(most).build());
    }

    @Test
    void theHeadOfTheQueueIsWarnedThatAskingAgainPutsItBehindTheJobsWaitingAfterIt() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        e.apply(Pools.submit(1_000, JobSpec.builder("running").gang(1, 8).runtimeEstimateMs(10 * MIN).build()));
        e.apply(Pools.submit(2_000, JobSpec.builder("head").gang(2, 8).build()));
        assertEquals(List.of(), advice(e, "head").notes(), "nobody waits after it: its changes hold as they are");
        e.apply(Pools.submit(3_000, JobSpec.builder("next").gang(2, 8).build()));

        final PendingAdvice a = advice(e, "head");
        assertEquals("1", only(a, PendingAdvice.ChangeKind.FEWER_NODES).to(), "one node fits now");
        assertEquals(List.of("it holds the head-of-queue reservation: asked for again with a change, it queues behind "
                + "the 1 job waiting after it, which may take the room first"), a.notes());
        // and so it does: the next gang reserves both nodes, and one node for an hour would delay it
        final long now = e.nowMs();
        e.apply(new EngineInput.CancelJob(now, "head", "apply the advice"));
        final EngineOutput out = e.apply(Pools.submit(now, JobSpec.builder("head2").gang(1, 8).build()));
        assertEquals(List.of(), Pools.of(out, DecisionKind.PLACED), "the warning was due");
    }

    @Test
    void whenNoChangeHelpsTheAdviceSaysSoAndNamesWhatItWaitsFor() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        e.apply(Pools.submit(1_000, JobSpec.builder("all").gang(2, 8).runtimeEstimateMs(5 * MIN).build()));
        e.apply(Pools.submit(2_000, JobSpec.builder("x").gang(1, 8).build()));

        final PendingAdvice a = advice(e, "x");
        assertEquals(List.of(), a.wouldRunIf());
        assertEquals(List.of("all"), ids(a.waitingFor()));
        assertEquals(1_000 + 5 * MIN, a.waitingFor().get(0).expectedEndMs());
    }

    @Test
    void strictOrderNamesTheJobsAheadAndSuggestsNothing() {
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "backfill", "false")), 1, 2, 8);
        e.apply(Pools.submit(1_000, JobSpec.builder("running").gang(1, 8).build()));
        e.apply(Pools.submit(2_000, JobSpec.builder("head").gang(2, 8).build()));
        e.apply(Pools.submit(3_000, JobSpec.builder("x").gang(1, 4).build()));

        assertEquals(ReasonCode.WAITING_FOR_HIGHER_PRIORITY, e.job("x").orElseThrow().currentReason().code());
        final PendingAdvice a = advice(e, "x");
        assertEquals(List.of("head"), a.jobsAhead());
        assertEquals(1, a.jobsAheadCount());
        assertEquals(List.of(), a.wouldRunIf(), "behind a blocked job in strict order no change runs it now");
    }

    @Test
    void overItsTenantsCapTheJobWaitsForItsTenantsOwnJobs() {
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "tenant.t.max-gpus", "8")), 1, 2, 8);
        e.apply(Pools.submit(1_000, JobSpec.builder("other").tenant("u").gang(1, 4).runtimeEstimateMs(MIN).build()));
        e.apply(Pools.submit(2_000, JobSpec.builder("mine").tenant("t").gang(1, 8).runtimeEstimateMs(9 * MIN).build()));
        e.apply(Pools.submit(3_000, JobSpec.builder("x").tenant("t").gang(1, 2).build()));

        assertEquals(ReasonCode.QUOTA_EXHAUSTED, e.job("x").orElseThrow().currentReason().code());
        final PendingAdvice a = advice(e, "x");
        assertEquals(List.of("mine"), ids(a.waitingFor()), "another tenant's job ending frees nothing under the cap");
        assertEquals(List.of(), a.wouldRunIf());
    }

    @Test
    void advisingChangesNothingAndARestoredEngineAdvisesTheSame() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 3, 8);
        e.apply(Pools.submit(1_000, JobSpec.builder("one").gang(1, 8).runtimeEstimateMs(10 * MIN).build()));
        e.apply(Pools.submit(2_000, JobSpec.builder("x").gang(3, 8).build()));
        final byte[] before = e.snapshot();
        final PendingAdvice a = advice(e, "x");
        assertArrayEquals(before, e.snapshot());
        assertEquals(a, advice(PoolEngine.restore(before, e.config()), "x"));
        assertTrue(e.advice("one").isEmpty(), "a running job gets no advice");
        // and decides on as an engine that was never asked: the same decisions, the same bytes
        final PoolEngine unasked = PoolEngine.restore(before, e.config());
        final List<EngineInput> next = List.of(Pools.submit(3_000, JobSpec.builder("y").gang(1, 4).build()),
                Pools.submit(4_000, JobSpec.builder("z").gang(2, 8).build()),
                new EngineInput.CancelJob(5_000, "one", "done"), new EngineInput.ClockTick(6_000));
        for (final EngineInput in : next) {
            e.advice("x"); // waiting or, once the pool freed up, not
            assertEquals(unasked.apply(in).decisions().toString(), e.apply(in).decisions().toString(), "after " + in);
        }
        assertArrayEquals(unasked.snapshot(), e.snapshot());
    }

    // ------------------------------------------------------------------ helpers

    private static PendingAdvice advice(final PoolEngine e, final String job) {
        return e.advice(job).orElseThrow();
    }

    private static PendingAdvice.Change only(final PendingAdvice a, final PendingAdvice.ChangeKind kind) {
        final List<PendingAdvice.Change> of = a.wouldRunIf().stream().filter(c -> c.kind() == kind).toList();
        assertEquals(1, of.size(), "one " + kind + " change in " + a.wouldRunIf());
        return of.get(0);
    }

    private static List<String> ids(final List<PendingAdvice.Holder> holders) {
        return holders.stream().map(PendingAdvice.Holder::jobId).toList();
    }

    /** The suggestion applied: the waiting job cancelled, the changed request submitted, and it is placed. */
    private static void assertPlacedWith(final PoolEngine e, final JobSpec waiting, final JobSpec changed) {
        final long now = e.nowMs(); // "would run now": the change is applied before time moves on
        e.apply(new EngineInput.CancelJob(now, waiting.jobId(), "apply the advice"));
        final EngineOutput out = e.apply(Pools.submit(now, changed));
        assertEquals(List.of(changed.jobId()), Pools.of(out, DecisionKind.PLACED).stream().map(Decision::jobId).toList(),
                "the changed request is placed: " + out.decisions());
    }

    private static NodeSpec node(final String id, final String leaf, final String model, final HcaLinkLayer fabric) {
        final List<GpuSpec> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            gpus.add(new GpuSpec(id + "-gpu" + i, model, 81_559, 0, i / 4));
        }
        return new NodeSpec(id, leaf, "s0", 200_000, 2_000_000, gpus, List.of(new HcaSpec("hca0", fabric, 0)));
    }
}
