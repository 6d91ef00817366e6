package io.gpupool.scheduler.audit.reality;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Sweeps the running shares of one GPU in time and finds where they add up to more than the whole
 * GPU. A share that ends at the moment another starts does not overlap it. A share still running at
 * the end of the history counts at that last moment too, so that two parts both running then are
 * found even when the history stops the instant the second one started.
 */
final class GpuOverlap {
    static final int WHOLE_GPU_MILLI = 1000;

    private enum Kind { END, START, OPEN_END }

    private record Point(long atMs, Kind kind, RunningShare share) {
    }

    private GpuOverlap() {
    }

    /** The GPU's over-allocation judged inside the window, if there was any. */
    static Optional<OverallocatedGpu> of(final List<RunningShare> shares, final RealityWindow window) {
        final List<Point> points = new ArrayList<>();
        for (final RunningShare s : shares) {
            if (s.open() || s.toMs() > s.fromMs()) { // a run that lasted no time held nothing
                points.add(new Point(s.fromMs(), Kind.START, s));
                points.add(new Point(s.toMs(), s.open() ? Kind.OPEN_END : Kind.END, s));
            }
        }
        points.sort(Comparator.comparingLong(Point::atMs).thenComparing(Point::kind));
        final Set<RunningShare> running = new LinkedHashSet<>();
        int milli = 0;
        int worst = WHOLE_GPU_MILLI;
        long worstAt = 0;
        List<RunningShare> worstParts = List.of();
        double overMilliMs = 0;
        long previous = Long.MIN_VALUE;
        int i = 0;
        while (i < points.size()) {
            final long t = points.get(i).atMs();
            if (milli > WHOLE_GPU_MILLI) {
                final long from = Math.max(previous, window.fromMs());
                final long to = Math.min(t, window.toMs());
                if (to > from) {
                    overMilliMs += (double) (to - from) * (milli - WHOLE_GPU_MILLI);
                    if (milli > worst) {
                        worst = milli;
                        worstAt = from;
                        worstParts = List.copyOf(running);
                    }
                }
            }
            for (; i < points.size() && points.get(i).atMs() == t && points.get(i).kind() == Kind.END; i++) {
                running.remove(points.get(i).share());
                milli -= points.get(i).share().milli();
            }
            for (; i < points.size() && points.get(i).atMs() == t && points.get(i).kind() == Kind.START; i++) {
                running.add(points.get(i).share());
                milli += points.get(i).share().milli();
            }
            if (milli > worst && window.contains(t)) {
                worst = milli;
                worstAt = t;
                worstParts = List.copyOf(running);
            }
            for (; i < points.size() && points.get(i).atMs() == t && points.get(i).kind() == Kind.OPEN_END; i++) {
                running.remove(points.get(i).share());
                milli -= points.get(i).share().milli();
            }
            previous = t;
        }
        if (worst == WHOLE_GPU_MILLI) {
            return Optional.empty();
        }
        final RunningShare any = worstParts.get(0);
        return Optional.of(new OverallocatedGpu(any.gpu(), any.nodeId(), worst, worstAt, worstParts,
                overMilliMs / WHOLE_GPU_MILLI / 1000.0));
    }
}
