package io.gpupool.cli;

import io.gpupool.scheduler.audit.RunStats;
import java.io.IOException;
import java.nio.file.Path;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The what-if chart: allocated GPUs over time, recorded and re-run, on one time axis from the start of the
 * history, in seconds, or in minutes for a history longer than {@link #MINUTES_AFTER_S} seconds.
 */
final class ReplayChart {
    /** Up to this span the axis counts seconds; beyond, minutes (a day in seconds is unreadable). */
    static final double MINUTES_AFTER_S = 1_200;

    private ReplayChart() {
    }

    static void write(final RunStats recorded, final RunStats whatIf, final Path png) throws IOException {
        ChartUtils.saveChartAsPNG(png.toFile(), chart(recorded, whatIf), 1200, 600);
    }

    static JFreeChart chart(final RunStats recorded, final RunStats whatIf) {
        final long origin = recorded.samples().isEmpty() ? 0 : recorded.samples().get(0).ms();
        final double spanMs = Math.max(end(recorded), end(whatIf)) - origin;
        final boolean minutes = spanMs / 1000 > MINUTES_AFTER_S;
        final double unitMs = minutes ? 60_000 : 1_000;
        final XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(series(recorded, origin, unitMs));
        data.addSeries(series(whatIf, origin, unitMs));
        // XYStepChart's own axis is a date axis: it read seconds as milliseconds since midnight (00:00:00.000-00:00:00.500)
        final JFreeChart chart = ChartFactory.createXYStepChart("Allocated GPUs: recorded vs. " + whatIf.label(),
                "", "allocated GPUs", data, PlotOrientation.VERTICAL, true, false, false);
        final NumberAxis time = new NumberAxis(minutes ? "time since start (min)" : "time since start (s)");
        time.setAutoRangeIncludesZero(true);
        time.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        ((XYPlot) chart.getPlot()).setDomainAxis(time);
        return chart;
    }

    private static long end(final RunStats run) {
        return run.samples().isEmpty() ? 0 : run.samples().get(run.samples().size() - 1).ms();
    }

    private static XYSeries series(final RunStats run, final long origin, final double unitMs) {
        final XYSeries s = new XYSeries(run.label(), true, true);
        for (final RunStats.Sample x : run.samples()) {
            s.addOrUpdate((x.ms() - origin) / unitMs, x.allocatedGpus());
        }
        return s;
    }
}
