package io.gpupool.bench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The bench offers the full rate after the ramp, and never more than it during the ramp. */
class PipelineBenchRampTest {
    @Test
    void theRampReachesTheFullRateWithoutAJumpAndOffersTheFullRateAfterIt() {
        final int rate = 5_000;
        final long ramp = 20_000;
        assertThat(PipelineBench.due(0, rate, ramp)).isZero();
        // half the ramp's length at the full rate, then exactly the rate per second
        assertThat(PipelineBench.due(ramp, rate, ramp)).isEqualTo(50_000);
        assertThat(PipelineBench.due(ramp + 30_000, rate, ramp) - PipelineBench.due(ramp, rate, ramp)).isEqualTo(150_000);
        long previous = 0;
        for (long t = 100; t <= ramp + 1_000; t += 100) {
            final long step = PipelineBench.due(t, rate, ramp) - previous;
            assertThat(step).as("requests due in the 100 ms before %d ms", t).isBetween(0L, 501L);
            previous += step;
        }
        // no ramp: the full rate from the start
        assertThat(PipelineBench.due(1_000, rate, 0)).isEqualTo(5_000);
    }
}
