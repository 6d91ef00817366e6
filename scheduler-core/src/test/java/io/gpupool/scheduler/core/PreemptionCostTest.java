package io.gpupool.scheduler.core;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Preemption evicts the cheapest victim set: least important victims, then least GPU-time lost, then fewest. */
class PreemptionCostTest {
    private static final long S = 1_000;

    private static EngineConfig cfg() {
        return EngineConfig.fromSettings(Map.of("pool", "p", "stale-telemetry-timeout-ms", "0"));
    }

    private static JobSpec be(final String id, final int gpus) {
        return JobSpec.builder(id).priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(1, gpus).build();
    }

    private static List<String> evicted(final EngineOutput out, final String by) {
        return out.decisions().stream().filter(d -> d.kind() == DecisionKind.EVICTED && d.causedBy().equals(by))
                .map(Decision::jobId).sorted().toList();
    }

    private static JobSpec prod(final String id, final int nodes, final int gpus) {
        return JobSpec.builder(id).priorityClass(PriorityClass.PRODUCTION).gang(nodes, gpus).build();
    }

    /**
     * Taking the cheapest victims first evicts b, c and d (100 + 100 + 200 GPU-s); a alone loses 360:
     * cheaper, and one victim instead of three.
     */
    @Test
    void oneDearVictimCanBeCheaperThanSeveralCheapOnes() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        e.apply(submit(0, be("b", 1)));
        e.apply(submit(0, be("c", 1)));
        e.apply(submit(0, be("d", 2)));
        e.apply(submit(10 * S, be("a", 4)));
        assertEquals(List.of("a"), evicted(e.apply(submit(100 * S, prod("p", 1, 4))), "p"));
    }

    @Test
    void aLowerClassGoesFirstWhateverItLoses() {
        final PoolEngine e = Pools.pool(cfg(), 1, 2, 8);
        e.apply(submit(0, be("old-best-effort", 8)));
        e.apply(submit(90 * S, JobSpec.builder("young-batch").priorityClass(PriorityClass.BATCH).preemptible(true)
                .gang(1, 8).build()));
        assertEquals(List.of("old-best-effort"), evicted(e.apply(submit(100 * S, prod("p", 1, 8))), "p"));

        final PoolEngine f = Pools.pool(cfg(), 1, 2, 8);
        f.apply(submit(0, JobSpec.builder("low").priorityClass(PriorityClass.BEST_EFFORT).priority(0).preemptible(true)
                .gang(1, 8).build()));
        f.apply(submit(90 * S, JobSpec.builder("high").priorityClass(PriorityClass.BEST_EFFORT).priority(5)
                .preemptible(true).gang(1, 8).build()));
        assertEquals(List.of("low"), evicted(f.apply(submit(100 * S, prod("p", 1, 8))), "p"), "then the lower priority");
    }

    @Test
    void equalLossGoesToFewerVictimsThenToYoungerOnes() {
        final PoolEngine e = Pools.pool(cfg(), 1, 2, 8);
        e.apply(submit(0, be("pair-1", 4)));
        e.apply(submit(0, be("pair-2", 4)));
        e.apply(submit(0, be("whole", 8)));
        assertEquals(List.of("whole"), evicted(e.apply(submit(100 * S, prod("p", 1, 8))), "p"),
                "both lose 800 GPU-s: one victim rather than two");

        final PoolEngine f = Pools.pool(cfg(), 1, 2, 8);
        f.apply(submit(0, be("older", 8)));
        f.apply(submit(0, be("younger", 8)));
        assertEquals(List.of("younger"), evicted(f.apply(submit(100 * S, prod("p", 1, 8))), "p"), "equal loss: the younger");
    }

    /**
     * A running gang spans two nodes of the leaf: evicting it alone (1000 GPU-s) beats the two
     * single-node jobs that cheapest-first takes (400 + 700).
     */
    @Test
    void aRunningGangIsOneVictimForTwoNodes() {
        final PoolEngine e = Pools.pool(cfg(), 1, 4, 8);
        e.apply(submit(12_500, be("s2", 8)));
        e.apply(submit(37_500, JobSpec.builder("g").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true)
                .gang(2, 8).build()));
        e.apply(submit(50 * S, be("s1", 8)));
        final EngineOutput out = e.apply(submit(100 * S, prod("p", 2, 8)));
        assertEquals(List.of("g"), evicted(out, "p"));

        final PoolEngine f = Pools.pool(cfg(), 1, 4, 8);
        f.apply(submit(0, JobSpec.builder("g").priorityClass(PriorityClass.BEST_EFFORT).preemptible(true).gang(2, 8).build()));
        f.apply(submit(60 * S, be("s1", 8)));
        f.apply(submit(60 * S, be("s2", 8)));
        assertEquals(List.of("s1", "s2"), evicted(f.apply(submit(100 * S, prod("p", 2, 8))), "p"),
                "the two singles lose 640 GPU-s, the gang 1600");
    }

    @Test
    void whoPreemptedWhomIsRecorded() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        e.apply(submit(0, be("v1", 4)));
        e.apply(submit(0, be("v2", 4)));
        final EngineOutput out = e.apply(submit(100 * S, prod("p", 1, 8)));
        final Map<String, Decision> ev = new TreeMap<>();
        out.decisions().stream().filter(d -> d.kind() == DecisionKind.EVICTED).forEach(d -> ev.put(d.jobId(), d));
        assertEquals(List.of("v1", "v2"), List.copyOf(ev.keySet()));
        for (final Decision d : ev.values()) {
            assertEquals("p", d.causedBy());
            assertEquals(ReasonCode.PREEMPTED, d.reason().code());
            assertEquals("p", d.reason().evidence().get("by"));
            assertEquals("v2, v1", d.reason().evidence().get("victim_set"), "cheapest (younger) first");
            assertEquals("400", d.reason().evidence().get("lost_gpu_s"));
            assertEquals("p", e.job(d.jobId()).orElseThrow().preemptedBy());
            assertEquals(JobState.QUEUED, e.job(d.jobId()).orElseThrow().state(), "requeued");
        }
        final Decision placed = out.decisions().stream().filter(d -> d.kind() == DecisionKind.PLACED).findFirst().orElseThrow();
        assertEquals("p", placed.jobId());
        assertTrue(placed.reason().message().contains("preempted v2, v1 (2 victims, up to BEST_EFFORT priority 0, 800 GPU-s lost)"),
                placed.reason().message());
    }

    /** A large, busy pool: the search stays within its work bound and decides the same after a restore. */
    @Test
    void aLargeSearchIsBoundedAndDeterministic() {
        final PoolEngine e = Pools.pool(cfg(), 16, 4, 8);
        int n = 0;
        for (long t = 0; t < 512; t++) {
            e.apply(submit(t * S, be("b" + n++, 1)));
        }
        final byte[] before = e.snapshot();
        final EngineInput gang = submit(1_000 * S, prod("p", 3, 8));
        final EngineOutput out = e.apply(gang);
        final List<String> victims = evicted(out, "p");
        assertEquals(24, victims.size(), "three nodes' worth of 1-GPU jobs: " + victims);
        assertEquals(out, PoolEngine.restore(before, cfg()).apply(gang));
        // the youngest jobs lose least: the last three nodes filled
        for (final String v : victims) {
            assertTrue(Integer.parseInt(v.substring(1)) >= 512 - 24, v);
        }
    }
}
