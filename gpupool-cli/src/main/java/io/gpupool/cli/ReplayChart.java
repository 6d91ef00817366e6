package io.gpupool.cli;

import io.gpupool.scheduler.audit.RunStats;
import java.io.IOException;
import java.nio.file.Path;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The what-if chart: allocated GPUs over time, recorded and re-run, on one time axis (seconds from the start). */
final class ReplayChart {
    private ReplayChart() {
    }

    static void write(final RunStats recorded, final RunStats whatIf, final Path png) throws IOException {
        final XYSeriesCollection data = new XYSeriesCollection();
        final long origin = recorded.samples().isEmpty() ? 0 : recorded.samples().get(0).ms();
        data.addSeries(series(recorded, origin));
        data.addSeries(series(whatIf, origin));
        final JFreeChart chart = ChartFactory.createXYStepChart("Allocated GPUs: recorded vs. " + whatIf.label(),
                "time since start (s)", "allocated GPUs", data, PlotOrientation.VERTICAL, true, false, false);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1200, 600);
    }

    private static XYSeries series(final RunStats run, final long origin) {
        final XYSeries s = new XYSeries(run.label(), true, true);
        for (final RunStats.Sample x : run.samples()) {
            s.addOrUpdate((x.ms() - origin) / 1000.0, x.allocatedGpus());
        }
        return s;
    }
}
