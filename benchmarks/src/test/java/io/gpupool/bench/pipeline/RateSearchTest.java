package io.gpupool.bench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The --find-max search lands within its resolution of the true limit, from above or below, and says 0 when nothing holds. */
class RateSearchTest {

    private static int search(final int firstProbe, final int steps, final int limit, final List<Integer> probes) {
        return RateSearch.highestHolding(firstProbe, steps, rate -> {
            probes.add(rate);
            return rate <= limit;
        });
    }

    @Test
    void fromBelowItGrowsThenBisectsToWithinFivePercent() {
        final List<Integer> probes = new ArrayList<>();
        final int found = search(1_000, 12, 3_333, probes);
        assertThat(found).isBetween(3_333 - 3_333 / 20 - RateSearch.RESOLUTION, 3_333);
        assertThat(probes).startsWith(1_000, 1_500, 2_250);
    }

    @Test
    void fromAboveItBisectsDown() {
        final List<Integer> probes = new ArrayList<>();
        final int found = search(8_000, 12, 2_000, probes);
        assertThat(found).isBetween(1_900, 2_000);
        assertThat(probes.get(1)).isEqualTo(4_000);
    }

    @Test
    void itNeverSpendsMoreStepsThanAllowedAndReportsTheHighestThatHeld() {
        final List<Integer> probes = new ArrayList<>();
        final int found = search(1_000, 3, 100_000, probes);
        assertThat(probes).containsExactly(1_000, 1_500, 2_250);
        assertThat(found).isEqualTo(2_250);
    }

    @Test
    void whenNothingHoldsTheAnswerIsZero() {
        final List<Integer> probes = new ArrayList<>();
        assertThat(search(400, 10, 10, probes)).isZero();
        assertThat(probes).containsExactly(400, 200, 100, 50);
    }
}
