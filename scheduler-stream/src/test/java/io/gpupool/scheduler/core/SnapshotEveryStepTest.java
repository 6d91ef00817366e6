package io.gpupool.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

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
                    final PoolEngine copy = PoolEngine.restore(live.snapshot(), cfg);
                    final EngineOutput a = live.apply(inputs.get(i));
                    final EngineOutput b = copy.apply(inputs.get(i));
                    assertEquals(a, b, "seed " + seed + " " + policy + " step " + i + ": " + inputs.get(i));
                }
            }
        }
    }
}
