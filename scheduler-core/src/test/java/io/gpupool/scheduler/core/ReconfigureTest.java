package io.gpupool.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A configuration change keeps the state and changes the rules, as a restore under the new configuration would. */
class ReconfigureTest {
    private static final EngineConfig NEXT = EngineConfig.fromSettings(Map.of("pool", "p", "policy", "first-fit",
            "tenant.t1.max-gpus", "8", "backfill", "false"));

    @Test
    void aReconfiguredEngineIsItsOwnSnapshotRestoredUnderTheNewConfig() {
        final PoolEngine live = SnapshotFixtures.engine();
        final PoolEngine restored = PoolEngine.restore(PoolEngine.restore(live.snapshot(), NEXT).snapshot(), NEXT);
        assertEquals(SnapshotFixtures.CONFIG, restored.config(), "a version 7 snapshot keeps its own settings");
        live.reconfigure(NEXT);
        assertEquals(NEXT, live.config());
        // the snapshot now names NEXT, so it restores under NEXT whatever config it is given
        final PoolEngine underNext = PoolEngine.restore(live.snapshot(), SnapshotFixtures.CONFIG);
        assertEquals(NEXT, underNext.config());
        assertArrayEquals(live.snapshot(), underNext.snapshot());
        final List<EngineInput> next = List.of(
                new EngineInput.SubmitJob(live.nowMs() + 1, JobSpec.builder("a").tenant("t1").gang(1, 4).build()),
                new EngineInput.SubmitJob(live.nowMs() + 2, JobSpec.builder("b").tenant("t1").gang(1, 8).build()),
                new EngineInput.ClockTick(live.nowMs() + 60_000));
        for (final EngineInput in : next) {
            assertEquals(underNext.apply(in), live.apply(in), in.toString());
        }
    }

    @Test
    void theSameConfigChangesNothing() {
        final PoolEngine live = SnapshotFixtures.engine();
        final byte[] before = live.snapshot();
        live.reconfigure(EngineConfig.fromSettings(SnapshotFixtures.CONFIG.toSettings()));
        assertArrayEquals(before, live.snapshot());
        assertNotEquals(SnapshotFixtures.CONFIG, NEXT);
    }
}
