package io.gpupool.bench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JitActivityTest {

    @Test
    void aRateOnlyOnceSampledAndNeverNegativeOnAJvmThatReportsIt() {
        final JitActivity jit = new JitActivity(1_000);
        assertThat(jit.measured()).as("HotSpot reports its compiler's time").isTrue();
        assertThat(jit.msPerS()).isEqualTo(-1);
        assertThat(jit.sampledAtMs()).isEqualTo(1_000);
        jit.sample(6_000);
        assertThat(jit.sampledAtMs()).isEqualTo(6_000);
        final long first = jit.msPerS();
        assertThat(first).isNotNegative();
        // at most every compiler thread busy for the whole interval: HotSpot runs a handful of them
        assertThat(first).isLessThanOrEqualTo(1_000L * Runtime.getRuntime().availableProcessors() * 4);
    }
}
