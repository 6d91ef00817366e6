package io.gpupool.simulator.progress;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A one-line progress bar on stderr, redrawn in place; safe to advance from several threads.
 * Redraws at most once per percent so it costs nothing next to the simulation.
 */
public final class ProgressBar {

    private static final int WIDTH = 40;

    private final PrintStream out;
    private final String label;
    private final long total;
    private final AtomicLong done = new AtomicLong();
    private final long startNanos = System.nanoTime();
    private int lastPercent = -1;

    public ProgressBar(final PrintStream out, final String label, final long total) {
        this.out = out;
        this.label = label;
        this.total = Math.max(1, total);
    }

    public void advance(final long steps) {
        final long now = done.addAndGet(steps);
        final int percent = (int) Math.min(100, now * 100 / total);
        synchronized (this) {
            if (percent != lastPercent) {
                lastPercent = percent;
                draw(percent, now);
            }
        }
    }

    public synchronized void finish() {
        draw(100, total);
        out.println();
        out.flush();
    }

    private void draw(final int percent, final long now) {
        final int filled = percent * WIDTH / 100;
        final double seconds = (System.nanoTime() - startNanos) / 1e9;
        out.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] "
                + percent + "% " + Math.min(now, total) + "/" + total + String.format(" %.1fs", seconds));
        out.flush();
    }
}
