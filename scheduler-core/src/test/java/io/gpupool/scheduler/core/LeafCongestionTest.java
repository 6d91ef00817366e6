package io.gpupool.scheduler.core;

import java.util.Map;
import org.junit.jupiter.api.Test;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A leaf is congested when the mean uplink utilisation of all its nodes with a figure reaches
 * leaf-congested-pct (70 by default). The placer judges it from every node's figure: stage 1 reads
 * telemetry by node, across several tasks, and none of them sees a whole leaf.
 */
class LeafCongestionTest {
    private long ts = 1;

    /** The leaf where a 2x8 gang lands; cancelled again so the pool stays empty. */
    private String gangLands(final PoolEngine e) {
        final String id = "g" + ts;
        final Decision d = e.apply(submit(ts++, JobSpec.builder(id).gang(2, 8).build())).decisions().get(0);
        assertEquals(DecisionKind.PLACED, d.kind(), d.toString());
        e.apply(new EngineInput.CancelJob(ts++, id, ""));
        return e.node(d.placement().get(0).nodeId()).orElseThrow().leaf();
    }

    private void uplink(final PoolEngine e, final String node, final int pct) {
        e.apply(new EngineInput.NodeUplinkFact(ts++, node, pct));
    }

    @Test
    void theLeafIsJudgedOnTheMeanOfAllItsNodesFigures() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 2, 3, 8);
        assertEquals("l0", gangLands(e)); // pool order while nothing is congested
        uplink(e, "n0-0", 98);
        assertEquals("l1", gangLands(e)); // l0: 98
        uplink(e, "n0-1", 30);
        assertEquals("l0", gangLands(e)); // l0: (98 + 30) / 2 = 64
        uplink(e, "n0-1", 50);
        assertEquals("l1", gangLands(e)); // l0: 74
        uplink(e, "n0-2", 60);
        assertEquals("l0", gangLands(e)); // l0: 69.3, under 70
        uplink(e, "n0-2", 62);
        assertEquals("l1", gangLands(e)); // l0: 70
        uplink(e, "n0-0", -1);
        assertEquals("l0", gangLands(e)); // n0-0 no longer known: l0 is (50 + 62) / 2 = 56
        uplink(e, "n0-2", 90);
        assertEquals("l1", gangLands(e)); // (50 + 90) / 2 = 70
        uplink(e, "n0-1", -1);
        assertEquals("l1", gangLands(e)); // 90 alone
        uplink(e, "n0-2", -1);
        assertEquals("l0", gangLands(e)); // its last figure gone: no longer congested
    }

    @Test
    void aNodeWhoseTelemetryWentStaleNoLongerCountsUntilItIsBack() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 2, 3, 8);
        uplink(e, "n0-0", 95);
        assertEquals("l1", gangLands(e));
        // every node but n0-0 keeps reporting; n0-0 goes stale (120 s without telemetry) on the next tick
        ts = 150_000;
        for (final String n : new String[] {"n0-1", "n0-2", "n1-0", "n1-1", "n1-2"}) {
            e.apply(new EngineInput.NodeHeartbeat(ts++, n));
        }
        ts = 200_000;
        e.apply(new EngineInput.ClockTick(ts++));
        assertEquals(false, congested(e, "l0"));
        assertEquals("l0", gangLands(e)); // on n0-1 and n0-2: l0 has fewer fitting nodes than l1
        e.apply(new EngineInput.NodeHeartbeat(ts++, "n0-0"));
        assertEquals(true, congested(e, "l0")); // back, with its last figure
        final PoolEngine restored = PoolEngine.restore(e.snapshot(), Pools.config(ScoringPolicy.BEST_FIT));
        assertEquals(true, congested(restored, "l0"));
        assertEquals(95.0, restored.st.leafUplinkPct(restored.st.leaves.find("l0")), 1e-9);
    }

    @Test
    void removalAndRecablingMoveTheFigures() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 3, 3, 8);
        uplink(e, "n0-0", 95);
        uplink(e, "n0-1", 60);
        assertEquals("l1", gangLands(e)); // l0: 77.5
        e.apply(new EngineInput.NodeRemoval(ts++, "n0-0"));
        assertEquals("l0", gangLands(e)); // l0 keeps n0-1's 60: not congested
        // n0-1 re-cabled to l1 takes its 60 along: l1 averages (60 + 75) / 2 = 67.5, not 75
        e.apply(new EngineInput.NodeUpsert(ts++, Pools.node("n0-1", "l1", 8)));
        uplink(e, "n1-0", 75);
        assertEquals(false, congested(e, "l1"));
        assertEquals(false, congested(e, "l0"));
        uplink(e, "n1-1", 90);
        assertEquals(true, congested(e, "l1")); // (60 + 75 + 90) / 3 = 75
        // and back: l0 gets n0-1's 60 and is judged on it alone, l1 on 75 and 90
        e.apply(new EngineInput.NodeUpsert(ts++, Pools.node("n0-1", "l0", 8)));
        assertEquals(false, congested(e, "l0"));
        assertEquals(true, congested(e, "l1"));
        assertEquals(60.0, e.st.leafUplinkPct(e.st.leaves.find("l0")), 1e-9);
        assertEquals(82.5, e.st.leafUplinkPct(e.st.leaves.find("l1")), 1e-9);
    }

    private static boolean congested(final PoolEngine e, final String leaf) {
        return e.st.leafCongested.get(e.st.leaves.find(leaf));
    }

    @Test
    void theFiguresSurviveASnapshot() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 2, 3, 8);
        uplink(e, "n0-0", 98);
        final PoolEngine restored = PoolEngine.restore(e.snapshot(), Pools.config(ScoringPolicy.BEST_FIT));
        // 98 and 60 average 79: congested only if the restored engine still knows n0-0's 98
        uplink(restored, "n0-1", 60);
        assertEquals("l1", gangLands(restored));
    }

    @Test
    void theThresholdIsASettingAndFiguresAreChecked() {
        final EngineConfig strict = EngineConfig.fromSettings(Map.of("pool", "p", "leaf-congested-pct", "50"));
        assertEquals(50, strict.leafCongestedPct());
        final PoolEngine e = Pools.pool(strict, 2, 3, 8);
        uplink(e, "n0-0", 55);
        assertEquals("l1", gangLands(e));
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.fromSettings(
                Map.of("leaf-congested-pct", "0")));
        assertThrows(IllegalArgumentException.class, () -> new EngineInput.NodeUplinkFact(1, "n", 101));
    }
}
