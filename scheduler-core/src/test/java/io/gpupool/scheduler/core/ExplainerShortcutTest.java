package io.gpupool.scheduler.core;

import java.util.List;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The explainer's shortcut (too few free GPUs, nothing impaired) says exactly what the full walk says. */
class ExplainerShortcutTest {

    @Test
    void theShortcutAgreesWithTheWalkOnRandomHistories() {
        final List<JobSpec> asks = List.of(JobSpec.builder("a").gang(1, 1).build(), JobSpec.builder("b").gang(1, 8).build(),
                JobSpec.builder("c").gang(4, 8).build(), JobSpec.builder("d").gang(2, 4).models("H100").build(),
                JobSpec.builder("e").gang(1, 64).build());
        int compared = 0;
        for (long seed = 0; seed < 20; seed++) {
            final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
            for (final EngineInput in : RandomStreams.stream(seed, 200)) {
                e.apply(RandomStreams.bind(e, in));
                for (final JobSpec ask : asks) {
                    assertEquals(e.explainer().whyNotByScan(ask), e.explainer().whyNot(ask), "seed " + seed + " after " + in);
                    compared++;
                }
            }
        }
        assertTrue(compared > 1000);
    }

    @Test
    void aFullPoolIsExplainedWithoutTheWalkAndAnUnhealthyGpuStillGetsItsExample() {
        final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 1, 2, 8);
        e.apply(new EngineInput.SubmitJob(1, JobSpec.builder("x").gang(2, 8).build()));
        final Reason full = e.explainer().whyNot(JobSpec.builder("y").gang(1, 1).build());
        assertEquals(ReasonCode.INSUFFICIENT_FREE_GPUS, full.code());
        assertEquals("needs 1 GPUs on one node; 0 of 16 free, 0 unhealthy", full.message());
    }
}
