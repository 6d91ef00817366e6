package io.gpupool.scheduler.stream;

import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.Tick;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Stage 1 forgets a pool whose last node left: no clock ticks for it ever after. */
class EmptyPoolTicksTest {
    private static final long TICK_MS = 10_000;

    private static List<String> tickedPools(final Harness h) {
        return h.journal().stream().map(r -> r.value()).filter(e -> e.getPayload() instanceof Tick t && t.getNodeId() == null)
                .map(JournalEntry::getPool).distinct().sorted().toList();
    }

    @Test
    void aPoolWhoseLastNodeLeftGetsNoMoreTicks() throws Exception {
        try (Harness h = new Harness(1_000, TICK_MS)) {
            h.inventory.pipeInput("a0", Fixtures.node("pa", "a0", "leaf-a", 8), 1_000);
            h.inventory.pipeInput("b0", Fixtures.node("pb", "b0", "leaf-b", 8), 1_000);
            h.inventory.pipeInput("c0", Fixtures.node("pc", "c0", "leaf-c", 8), 1_000);
            h.gpu.pipeInput("a0", Fixtures.gpus("a0", 8, 0, 1_000 + TICK_MS), 1_000 + TICK_MS);
            assertThat(tickedPools(h)).containsExactly("pa", "pb", "pc");

            h.inventory.pipeInput("b0", null, 2_000 + TICK_MS); // removed
            h.inventory.pipeInput("c0", Fixtures.node("pa", "c0", "leaf-c", 8), 2_000 + TICK_MS); // moved to pa
            h.journal();
            h.gpu.pipeInput("a0", Fixtures.gpus("a0", 8, 0, 1_000 + 3 * TICK_MS), 1_000 + 3 * TICK_MS);
            assertThat(tickedPools(h)).containsExactly("pa");
        }
    }
}
