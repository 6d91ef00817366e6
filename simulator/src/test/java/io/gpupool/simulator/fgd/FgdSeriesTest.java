package io.gpupool.simulator.fgd;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class FgdSeriesTest {

    /** Capacity 10 GPUs; pods of 4, 4, 4 GPUs arrive; the third fails. */
    private static final FgdSeries SERIES = new FgdSeries("p", 0, 10_000,
            new String[] {"a", "b", "c"}, new long[] {4000, 4000, 4000},
            new long[] {4000, 8000, 12_000}, new long[] {4000, 8000, 8000}, new long[] {0, 0, 0},
            new String[] {"n1", "n2", null}, new double[] {0, 0.1, 0.2});

    @Test
    void readsAllocationAfterTheLastPodWithinTheArrivedPercent() {
        assertThat(SERIES.allocatedPctAt(0)).isZero();
        assertThat(SERIES.allocatedPctAt(50)).isEqualTo(40.0);
        assertThat(SERIES.allocatedPctAt(100)).isEqualTo(80.0);
        assertThat(SERIES.allocatedPctAt(130)).isEqualTo(80.0);
        assertThat(SERIES.finalArrivedPct()).isEqualTo(120.0);
        assertThat(SERIES.failedPods()).isEqualTo(1);
    }

    @Test
    void averagesOverSeedsIgnoringPercentsNotReached() {
        final FgdResult result = new FgdResult("p", List.of(SERIES, SERIES));
        assertThat(result.meanAllocatedPctAt(100)).isEqualTo(80.0);
        assertThat(result.meanFragmentationRatePctAt(2)).isCloseTo(20.0, within(1e-9));
        assertThat(result.meanFragmentationRatePctAt(3)).isNaN();
    }
}
