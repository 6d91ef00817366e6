package io.gpupool.simulator.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.Arrays;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Line charts written as PNG with JFreeChart, headless, in one consistent style. */
public final class Charts {

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 600;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
    };

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    public static void line(final Path png, final String title, final String xLabel, final String yLabel,
                            final XYSeriesCollection data, final boolean logX) {
        final JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data,
                PlotOrientation.VERTICAL, true, false, false);
        final XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        if (logX) {
            final LogAxis axis = new LogAxis(xLabel);
            axis.setSmallestValue(1);
            axis.setBase(10);
            axis.setTickUnit(new NumberTickUnit(1)); // one tick per decade
            axis.setNumberFormatOverride(new DecimalFormat("#,##0"));
            plot.setDomainAxis(axis);
        }
        final XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            final boolean reference = data.getSeriesKey(i).toString().startsWith("published") || data.getSeriesKey(i).toString().startsWith("arrived");
            renderer.setSeriesStroke(i, reference
                    ? new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
                    : new BasicStroke(2.2f));
        }
        plot.setRenderer(renderer);
        try {
            ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + png, e);
        }
    }

    /** Empirical CDF of {@code values} as a series (x = value, y = fraction at or below). */
    public static XYSeries cdf(final String name, final long[] values, final double floor) {
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        final XYSeries series = new XYSeries(name, true, true);
        final int points = Math.min(sorted.length, 400);
        for (int p = 0; p < points; p++) {
            final int index = (int) ((long) (p + 1) * sorted.length / points) - 1;
            series.addOrUpdate(Math.max(floor, sorted[index]), (index + 1.0) / sorted.length);
        }
        return series;
    }
}
