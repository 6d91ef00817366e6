package io.gpupool.sink;

import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.Outcome;
import io.gpupool.sink.metrics.SinkMetrics;
import io.gpupool.avro.JobEventType;
import io.gpupool.sink.events.JobEvents;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a recorded part through the applier, with retries (FAILED when they run out): at once on
 * the consumer thread, or, when a part being stopped still holds one of its GPUs, on a worker thread
 * once that stop is over ({@link GpuHandover}). The consumer goes on with the other nodes' commands
 * meanwhile.
 *
 * <p>A part is never started on a GPU whose previous part may still run: when that part's stop
 * failed, or is not over within the bound, the part is refused instead, reported EVICTED (node
 * side, naming the GPU and the part that holds it) and counted ({@code gpupool.sink.starts.refused}).
 */
final class PartStarts {

    private static final Logger LOG = LoggerFactory.getLogger(PartStarts.class);
    private static final String ALLOCATE = NodeCommandType.ALLOCATE.name();

    private final Applier applier;
    private final PartTracker tracker;
    private final GpuHandover handover;
    private final SinkMetrics metrics;
    private final RetryPolicy retry;
    private final Executor workers;
    /** Starts waiting for their GPUs, by the part's ALLOCATE id; each completes once its start is over or skipped. */
    private final Map<String, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();

    PartStarts(final Applier applier, final PartTracker tracker, final GpuHandover handover, final SinkMetrics metrics,
               final RetryPolicy retry, final Executor workers) {
        this.applier = applier;
        this.tracker = tracker;
        this.handover = handover;
        this.metrics = metrics;
        this.retry = retry;
        this.workers = workers;
    }

    /** Starts a registered part; {@code t0} and {@code recordTimestamp} time the command for the metrics. */
    void start(final JobPart part, final long t0, final long recordTimestamp) throws InterruptedException {
        final List<GpuHandover.Stop> before = handover.holding(part);
        if (before.isEmpty()) {
            startNow(part, t0, recordTimestamp);
            return;
        }
        final Optional<GpuHandover.Stop> failed = GpuHandover.failedOf(before);
        if (failed.isPresent()) {
            refuse(part, failed.get(), "which could not be stopped");
            return;
        }
        metrics.startWaited();
        LOG.info("{} waits for the stop of {} before it starts", part.key(), before);
        final CompletableFuture<Void> over = new CompletableFuture<>();
        waiting.put(part.commandId(), over); // before it can complete: a stop of this part must find it
        GpuHandover.whenOver(before).thenAcceptAsync(stillRunning -> {
            if (!tracker.isLive(part)) {
                LOG.info("{} was stopped before its GPUs were free; not started", part.key());
                return;
            }
            if (!stillRunning.isEmpty()) {
                final GpuHandover.Stop stop = stillRunning.get(0);
                refuse(part, stop, stop.failed() ? "which could not be stopped"
                        : "which could not be stopped within " + handover.bound());
                return;
            }
            try {
                startNow(part, t0, recordTimestamp);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }, workers).whenComplete((v, error) -> {
            if (error != null) {
                // The sink is closing: the ledger has the part unstarted, and the next sink process reports it lost.
                LOG.warn("{} was not started: {}", part.key(), error.toString());
            }
            waiting.remove(part.commandId(), over);
            over.complete(null);
        });
    }

    /**
     * Never starts the part: the part before it on one of its GPUs may still run (its stop failed, or
     * is not over within the bound). Reported as a node-side EVICTED, settled like every terminal
     * event (outcome in the ledger first), so the scheduler evicts and requeues the job.
     */
    private void refuse(final JobPart part, final GpuHandover.Stop stop, final String why) {
        if (!tracker.claim(part)) {
            return; // stopped meanwhile: that stop reports it, and it never started
        }
        metrics.startRefused();
        final String reason = "GPU " + stop.heldGpu(part) + " on " + part.nodeId() + " is still held by part "
                + stop.part() + " (placement " + stop.placementId() + "), " + why;
        LOG.warn("not starting {}: {}", part.key(), reason);
        tracker.settle(part, JobEvents.ofPart(part, JobEventType.EVICTED, Instant.now(), null, reason));
        tracker.stopped(part);
    }

    /** Completes once the part's start is over (started, failed or skipped); at once when it is not waiting. */
    CompletableFuture<Void> startOver(final JobPart part) {
        return waiting.getOrDefault(part.commandId(), CompletableFuture.completedFuture(null));
    }

    private void startNow(final JobPart part, final long t0, final long recordTimestamp) throws InterruptedException {
        try {
            retry.run(() -> {
                applier.allocate(part, tracker);
                return null;
            }, attempt -> {
                metrics.retried(ALLOCATE);
                LOG.warn("attempt {} to start {} failed; retrying", attempt, part.key());
            });
            metrics.applied(ALLOCATE, Duration.ofNanos(System.nanoTime() - t0), System.currentTimeMillis() - recordTimestamp);
        } catch (final InterruptedException e) {
            throw e;
        } catch (final Exception e) {
            metrics.failed(ALLOCATE);
            LOG.warn("could not start {}: {}", part.key(), e.toString());
            tracker.ended(part, Outcome.lost("could not start on " + part.nodeId() + ": " + e));
        }
    }
}
