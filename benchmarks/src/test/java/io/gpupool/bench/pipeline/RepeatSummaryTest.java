package io.gpupool.bench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** --repeat prints min/median/max of every figure all runs printed, in the first run's order. */
class RepeatSummaryTest {

    @Test
    void wholeFiguresStayWholeRatiosKeepThreeDecimalsAndPartialOrTextFiguresAreLeftOut() {
        final Map<String, String> summary = RepeatSummary.of(List.of(
                Map.of("requests_per_s", "900", "drain_ratio", "0.250", "step3_held", "true"),
                Map.of("requests_per_s", "1100", "drain_ratio", "0.300"),
                Map.of("requests_per_s", "1000", "drain_ratio", "0.200", "step3_held", "false")));
        assertThat(summary).containsEntry("requests_per_s_min", "900").containsEntry("requests_per_s_median", "1000")
                .containsEntry("requests_per_s_max", "1100").containsEntry("drain_ratio_min", "0.200")
                .containsEntry("drain_ratio_median", "0.250").containsEntry("drain_ratio_max", "0.300")
                .containsEntry("runs", "3").doesNotContainKeys("step3_held_min", "step3_held_median");
    }

    @Test
    void anEvenNumberOfRunsTakesTheMeanOfTheMiddleTwo() {
        final Map<String, String> summary = RepeatSummary.of(List.of(Map.of("recovery_s", "-1"),
                Map.of("recovery_s", "12.0"), Map.of("recovery_s", "10.0"), Map.of("recovery_s", "30.0")));
        assertThat(summary).containsEntry("recovery_s_min", "-1.000").containsEntry("recovery_s_median", "11.000")
                .containsEntry("recovery_s_max", "30.000");
    }
}
