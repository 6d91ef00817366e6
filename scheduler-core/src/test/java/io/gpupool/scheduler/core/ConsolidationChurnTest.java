package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Consolidation must not churn. The workload: two preemptible jobs of the same class, each of 6
 * GPUs, on two 8-GPU nodes of which one holds a pinned 4-GPU job. Whichever waits finds 6 GPUs free
 * but scattered (4 + 2), moves the other (it has just started, so it loses nothing: the cheapest
 * victim) and takes its node; the moved one then finds the same, and moves it back. Without a guard
 * that went on at every queue pass, forever.
 */
class ConsolidationChurnTest {
    private static final long MINUTE = 60_000;
    private static final long HOURS = 6 * 60 * MINUTE;

    private static EngineConfig cfg(final String... kv) {
        final Map<String, String> m = new TreeMap<>();
        m.put("pool", "p");
        m.put("stale-telemetry-timeout-ms", "0");
        m.put("consolidation-max-evictions", "2");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return EngineConfig.fromSettings(m);
    }

    /** The workload's inputs: the pool, the three jobs, then a tick a minute for six hours. */
    private static List<EngineInput> pingPong() {
        final List<EngineInput> in = new ArrayList<>();
        in.add(new EngineInput.NodeUpsert(0, Pools.node("n0-0", "l0", 8)));
        in.add(new EngineInput.NodeUpsert(0, Pools.node("n0-1", "l0", 8)));
        in.add(submit(1_000, JobSpec.builder("pin").gang(1, 4).build()));
        in.add(submit(2_000, JobSpec.builder("v").preemptible(true).gang(1, 6).build()));
        in.add(submit(3_000, JobSpec.builder("x").preemptible(true).gang(1, 6).build()));
        for (long t = MINUTE; t <= HOURS; t += MINUTE) {
            in.add(new EngineInput.ClockTick(t));
        }
        return in;
    }

    /** Job id -> stream times consolidation moved it. */
    private static Map<String, List<Long>> moves(final EngineConfig cfg) {
        final PoolEngine e = new PoolEngine(cfg);
        final Map<String, List<Long>> moved = new TreeMap<>();
        for (final EngineInput in : pingPong()) {
            for (final Decision d : e.apply(in).decisions()) {
                if (d.kind() == DecisionKind.EVICTED) {
                    assertEquals(ReasonCode.CONSOLIDATED, d.reason().code());
                    moved.computeIfAbsent(d.jobId(), k -> new ArrayList<>()).add(d.timestampMs());
                }
            }
        }
        return moved;
    }

    @Test
    void withoutTheGuardTheWorkloadChurnsAtEveryPass() {
        final Map<String, List<Long>> moved = moves(cfg("consolidation-cooldown-ms", "0",
                "consolidation-window-max-evictions", "0"));
        assertTrue(moved.get("v").size() > 300 && moved.get("x").size() > 300, "moved " + moved);
    }

    @Test
    void theCooldownBoundsHowOftenAJobIsMoved() {
        final EngineConfig c = cfg("consolidation-window-max-evictions", "0");
        assertEquals(30 * MINUTE, c.consolidationCooldownMs(), "the default cooldown");
        final Map<String, List<Long>> moved = moves(c);
        final long bound = 1 + HOURS / c.consolidationCooldownMs();
        assertTrue(!moved.isEmpty(), "consolidation still works");
        moved.forEach((job, at) -> {
            assertTrue(at.size() <= bound, job + " moved " + at.size() + " times, bound " + bound);
            for (int i = 1; i < at.size(); i++) {
                assertTrue(at.get(i) - at.get(i - 1) >= c.consolidationCooldownMs(), job + " moved again within the cooldown: " + at);
            }
        });
        assertTrue(!moved.containsKey("pin"), "not preemptible: never moved");
    }

    @Test
    void thePoolBudgetBoundsMovesPerWindow() {
        final EngineConfig c = cfg("consolidation-cooldown-ms", "0", "consolidation-window-ms", Long.toString(60 * MINUTE),
                "consolidation-window-max-evictions", "3");
        final List<Long> all = new ArrayList<>();
        moves(c).values().forEach(all::addAll);
        all.sort(Long::compare);
        assertTrue(all.size() <= 3 * (HOURS / (60 * MINUTE) + 1), "moves " + all);
        for (int i = 0; i < all.size(); i++) {
            int inWindow = 0;
            for (final long t : all) {
                if (t > all.get(i) - 60 * MINUTE && t <= all.get(i)) {
                    inWindow++;
                }
            }
            assertTrue(inWindow <= 3, "more than 3 moves in the hour before " + all.get(i) + ": " + all);
        }
    }

    @Test
    void theDefaultsGuardBothWays() {
        final Map<String, List<Long>> moved = moves(cfg());
        final long bound = 1 + HOURS / (30 * MINUTE);
        moved.forEach((job, at) -> assertTrue(at.size() <= bound, job + " moved " + at));
    }

    /** The guard is engine state: a copy restored before every input decides exactly like the live engine. */
    @Test
    void theGuardIsInTheSnapshot() {
        for (final EngineConfig c : List.of(cfg(), cfg("consolidation-cooldown-ms", "0",
                "consolidation-window-ms", Long.toString(60 * MINUTE), "consolidation-window-max-evictions", "3"))) {
            final PoolEngine live = new PoolEngine(c);
            final List<EngineInput> inputs = pingPong();
            for (int i = 0; i < inputs.size(); i++) {
                final PoolEngine copy = PoolEngine.restore(live.snapshot(), c);
                assertArrayEquals(live.snapshot(), copy.snapshot(), "step " + i);
                assertEquals(live.apply(inputs.get(i)), copy.apply(inputs.get(i)), "step " + i + ": " + inputs.get(i));
            }
        }
    }

    @Test
    void guardSettingsAreValidated() {
        assertThrows(IllegalArgumentException.class, () -> cfg("consolidation-cooldown-ms", "-1"));
        assertThrows(IllegalArgumentException.class, () -> cfg("consolidation-window-ms", "0"));
        assertThrows(IllegalArgumentException.class, () -> cfg("consolidation-window-max-evictions", "-1"));
    }
}
