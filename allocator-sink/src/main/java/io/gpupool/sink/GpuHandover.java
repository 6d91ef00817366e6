package io.gpupool.sink;

import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.PartKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The stops in progress, and the stops that failed, by the GPUs their parts hold, so that a part
 * placed on one of those GPUs starts only once the part before it is gone: two jobs must never run
 * on one GPU at once, and a part being stopped holds its GPUs for up to a whole grace period after
 * the scheduler gave them away.
 *
 * <p>A GPU is its node id and uuid (node id and index when the inventory has no uuid), so parts on
 * different nodes never wait for each other.
 *
 * <p>Bounded: a start waits for a stop at most {@code bound} from when the stop began (the
 * applier's longest stop, retries included). A stop that failed, or that is not over within the
 * bound, may have left its part running: the start is then refused (see {@link PartStarts}), never
 * run beside it. A failed stop keeps holding its GPUs for the rest of this sink process (its ledger
 * entry stays unsettled and the next sink process tries it again), so later starts on them are
 * refused too; a stop that overran its bound holds them until it is over, and lets them go only if
 * it succeeded. A stop still queued for a free stopper thread has not begun, and the starts behind it
 * wait with it (every stop ahead of it in the queue is bounded the same way).
 */
final class GpuHandover {

    /** One part's stop, from when it is handed to a thread until it succeeded (for ever when it failed). */
    static final class Stop {
        private final JobPart part;
        private final Set<String> gpus;
        /** True once the part is gone; false when the stop failed or overran its bound. */
        private final CompletableFuture<Boolean> over = new CompletableFuture<>();
        private volatile boolean failed;

        private Stop(final JobPart part) {
            this.part = part;
            this.gpus = new LinkedHashSet<>(keys(part));
        }

        PartKey part() {
            return part.key();
        }

        String placementId() {
            return part.placementId();
        }

        /** The stop is over and failed: the part may still run. */
        boolean failed() {
            return failed;
        }

        /** The first of {@code next}'s GPUs this stop holds, as a uuid (index when it has none). */
        String heldGpu(final JobPart next) {
            for (int i = 0; i < next.gpuUuids().size(); i++) {
                if (gpus.contains(key(next, i))) {
                    return label(next, i);
                }
            }
            return "?";
        }

        @Override
        public String toString() {
            return part.key() + " on " + gpus;
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

    /** Node id and uuid, or node id and index when the uuid is empty: what names one GPU in the pool. */
    static List<String> keys(final JobPart part) {
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < part.gpuUuids().size(); i++) {
            out.add(key(part, i));
        }
        return out;
    }

    private static String key(final JobPart part, final int i) {
        return part.nodeId() + "\u0000" + label(part, i);
    }

    private static String label(final JobPart part, final int i) {
        final String uuid = part.gpuUuids().get(i);
        if (uuid != null && !uuid.isEmpty()) {
            return uuid;
        }
        return "#" + (i < part.gpuIndices().size() ? part.gpuIndices().get(i) : i);
    }

    /** Called before the stop is handed to a thread: from now on a start on the part's GPUs waits for it. */
    synchronized Stop stopping(final JobPart part) {
        final Stop stop = new Stop(part);
        for (final String gpu : stop.gpus) {
            byGpu.computeIfAbsent(gpu, g -> new LinkedHashSet<>()).add(stop);
        }
        return stop;
    }

    /** The stop runs now: its time starts. */
    void began(final Stop stop) {
        stop.over.completeOnTimeout(false, bound.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The stop is over; {@code gone}: the part no longer runs, its GPUs are free. False: the stop
     * failed, the part may still run, and its GPUs stay held.
     */
    void finished(final Stop stop, final boolean gone) {
        if (gone) {
            synchronized (this) {
                for (final String gpu : stop.gpus) {
                    final Set<Stop> stops = byGpu.get(gpu);
                    if (stops != null && stops.remove(stop) && stops.isEmpty()) {
                        byGpu.remove(gpu);
                    }
                }
            }
        } else {
            stop.failed = true;
        }
        stop.over.complete(gone);
    }

    /** The stops in progress, or failed, on any of the part's GPUs. */
    synchronized List<Stop> holding(final JobPart next) {
        final Set<Stop> out = new LinkedHashSet<>();
        for (final String gpu : keys(next)) {
            out.addAll(byGpu.getOrDefault(gpu, Set.of()));
        }
        return new ArrayList<>(out);
    }

    /** A stop among these that failed, if any: a start on their GPUs is refused at once. */
    static Optional<Stop> failedOf(final List<Stop> stops) {
        return stops.stream().filter(Stop::failed).findFirst();
    }

    /** Completes once every stop is over or out of time, with those whose part may still run. */
    static CompletableFuture<List<Stop>> whenOver(final List<Stop> stops) {
        return CompletableFuture.allOf(stops.stream().map(s -> s.over).toArray(CompletableFuture[]::new))
                .thenApply(v -> stops.stream().filter(s -> !s.over.join()).toList());
    }
}
