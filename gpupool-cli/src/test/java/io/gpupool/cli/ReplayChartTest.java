package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.scheduler.audit.RunStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The what-if chart's time axis counts seconds (minutes for a long history) from the history's start. */
class ReplayChartTest {
    /** A real epoch time as journals have them: the old date axis read the offsets as milliseconds after it. */
    private static final long START_MS = 1_796_109_831_709L;

    private static RunStats run(final String label, final long spanMs) {
        return new RunStats(label, List.of(), List.of(new RunStats.Sample(START_MS, 0, 64, 0),
                new RunStats.Sample(START_MS + spanMs / 2, 40, 64, 0), new RunStats.Sample(START_MS + spanMs, 30, 64, 0)));
    }

    private static ValueAxis timeAxis(final JFreeChart chart) {
        return ((XYPlot) chart.getPlot()).getDomainAxis();
    }

    @Test
    void aRunOf520SecondsIsLabelledInSecondsFromZeroTo520(@TempDir final Path dir) throws Exception {
        final JFreeChart chart = ReplayChart.chart(run("recorded", 520_000), run("what-if", 520_000));
        final ValueAxis axis = timeAxis(chart);
        assertThat(axis).isInstanceOf(NumberAxis.class);
        assertThat(axis.getLabel()).isEqualTo("time since start (s)");
        assertThat(axis.getLowerBound()).isLessThanOrEqualTo(0);
        assertThat(axis.getUpperBound()).isBetween(520.0, 600.0);
        assertThat(((XYPlot) chart.getPlot()).getDataset().getXValue(0, 2)).isEqualTo(520.0);
        final Path png = dir.resolve("replay.png");
        ReplayChart.write(run("recorded", 520_000), run("what-if", 520_000), png);
        assertThat(Files.size(png)).isPositive();
    }

    @Test
    void aRunOfTwoHoursIsLabelledInMinutes() {
        final ValueAxis axis = timeAxis(ReplayChart.chart(run("recorded", 7_200_000), run("what-if", 7_200_000)));
        assertThat(axis.getLabel()).isEqualTo("time since start (min)");
        assertThat(axis.getUpperBound()).isBetween(120.0, 140.0);
    }
}
