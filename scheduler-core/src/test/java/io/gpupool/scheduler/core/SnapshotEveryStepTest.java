package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The strongest resume check: before every input, restore a copy of the engine from its snapshot
 * and apply the input to both; the outputs must be identical. Catches any cache or derived index
 * that drifts from what the state alone determines.
 */
class SnapshotEveryStepTest {

    @Test
    void aRestoredCopyDecidesExactlyLikeTheLiveEngineAtEveryStep() {
        for (long seed = 0; seed < 20; seed++) {
            for (final ScoringPolicy policy : ScoringPolicy.values()) {
                final List<EngineInput> inputs = RandomStreams.stream(seed, 200);
                final EngineConfig cfg = Pools.config(policy);
                final PoolEngine live = new PoolEngine(cfg);
                for (int i = 0; i < inputs.size(); i++) {
                    liveAndRestoredCopy(live, cfg, inputs.get(i), "seed " + seed + " " + policy + " step " + i);
                }
            }
        }
    }

    /** The same with consolidation on and its guard tight, so that moves, cooldowns and the window matter. */
    @Test
    void withConsolidationAndItsGuardToo() {
        int moves = 0;
        for (long seed = 0; seed < 10; seed++) {
            for (final ScoringPolicy policy : List.of(ScoringPolicy.BEST_FIT, ScoringPolicy.FGD)) {
                final List<EngineInput> inputs = RandomStreams.stream(seed, 200);
                final EngineConfig cfg = EngineConfig.fromSettings(Map.of("pool", "p", "policy",
                        policy.policyName(), "consolidation-max-evictions", "3", "consolidation-cooldown-ms", "5000",
                        "consolidation-window-ms", "20000", "consolidation-window-max-evictions", "4"));
                final PoolEngine live = new PoolEngine(cfg);
                for (int i = 0; i < inputs.size(); i++) {
                    final EngineOutput a = liveAndRestoredCopy(live, cfg, inputs.get(i),
                            "seed " + seed + " " + policy + " step " + i);
                    EnginePropertiesTest.checkAccounting(live);
                    moves += (int) a.decisions().stream().filter(d -> d.reason().code() == ReasonCode.CONSOLIDATED).count();
                }
            }
        }
        Assertions.assertTrue(moves > 0, "consolidation moved something");
    }

    /** Applies one input to the live engine and to a copy restored from its snapshot: both must answer alike. */
    private static EngineOutput liveAndRestoredCopy(final PoolEngine live, final EngineConfig cfg, final EngineInput input,
                                                    final String step) {
        final PoolEngine copy = PoolEngine.restore(live.snapshot(), cfg);
        final EngineInput bound = RandomStreams.bind(live, input);
        final EngineOutput a = live.apply(bound);
        assertEquals(a, copy.apply(bound), step + ": " + input);
        return a;
    }
}
