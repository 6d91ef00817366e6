package io.gpupool.sink;

import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.PartKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The stops in progress by the GPUs their parts hold, so that a part placed on one of those GPUs
 * starts only once the part before it is gone: two jobs must not run on one GPU at once, and a part
 * being stopped holds its GPUs for up to a whole grace period after the scheduler gave them away.
 *
 * <p>Bounded: a start waits for a stop at most {@code bound} from when the stop began (the
 * applier's longest stop, retries included), then goes ahead anyway; a stop that failed lets its
 * waiters go at once. A stop still queued for a free stopper thread has not begun, and the starts
 * behind it wait with it (every stop ahead of it in the queue is bounded the same way).
 */
final class GpuHandover {

    /** One part's stop, from when it is handed to a thread until it is over. */
    static final class Stop {
        private final PartKey part;
        private final List<String> gpus;
        /** True once the part is gone; false when the stop failed or overran its bound. */
        private final CompletableFuture<Boolean> over = new CompletableFuture<>();

        private Stop(final PartKey part, final List<String> gpus) {
            this.part = part;
            this.gpus = gpus;
        }

        PartKey part() {
            return part;
        }

        @Override
        public String toString() {
            return part + " on " + gpus;
        }
    }

    private final Duration bound;
    /** Guarded by this; a GPU shared by fractional parts can have several stops at once. */
    private final Map<String, Set<Stop>> byGpu = new HashMap<>();

    GpuHandover(final Duration bound) {
        this.bound = bound;
    }

    Duration bound() {
        return bound;
    }

    /** Called before the stop is handed to a thread: from now on a start on the part's GPUs waits for it. */
    synchronized Stop stopping(final JobPart part) {
        final Stop stop = new Stop(part.key(), part.gpuUuids());
        for (final String gpu : stop.gpus) {
            byGpu.computeIfAbsent(gpu, g -> new LinkedHashSet<>()).add(stop);
        }
        return stop;
    }

    /** The stop runs now: its time starts. */
    void began(final Stop stop) {
        stop.over.completeOnTimeout(false, bound.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The stop is over; {@code gone}: the part no longer runs (false: the stop failed). */
    void finished(final Stop stop, final boolean gone) {
        synchronized (this) {
            for (final String gpu : stop.gpus) {
                final Set<Stop> stops = byGpu.get(gpu);
                if (stops != null && stops.remove(stop) && stops.isEmpty()) {
                    byGpu.remove(gpu);
                }
            }
        }
        stop.over.complete(gone);
    }

    /** The stops in progress on any of the part's GPUs. */
    synchronized List<Stop> holding(final JobPart next) {
        final Set<Stop> out = new LinkedHashSet<>();
        for (final String gpu : next.gpuUuids()) {
            out.addAll(byGpu.getOrDefault(gpu, Set.of()));
        }
        return new ArrayList<>(out);
    }

    /** Completes once every stop is over or out of time, with those whose part may still run. */
    static CompletableFuture<List<Stop>> whenOver(final List<Stop> stops) {
        return CompletableFuture.allOf(stops.stream().map(s -> s.over).toArray(CompletableFuture[]::new))
                .thenApply(v -> stops.stream().filter(s -> !s.over.join()).toList());
    }
}
