package io.gpupool.sink;

import io.gpupool.avro.JobEventType;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.Outcome;
import io.gpupool.sink.events.JobEvents;
import io.gpupool.sink.ledger.ActivePart.PendingStop;
import io.gpupool.sink.metrics.SinkMetrics;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops claimed parts on the worker threads (a grace period must not hold up the other nodes'
 * commands) and reports how each ended: EVICTED for an EVICT, RELEASED for a RELEASE (a gang's other
 * ranks after one ended), once the stop is over, so the event tells when the part really stopped.
 * The report is settled like every terminal event: outcome in the ledger first, settled once Kafka
 * has it. A stop that fails (its retries ran out, or it could not run) is left unsettled in the
 * ledger, and the next sink process tries again; meanwhile its part may still run, so its GPUs stay
 * held ({@link GpuHandover}) and a start on them is refused, in this sink process, for good.
 */
final class PartStops {

    private static final Logger LOG = LoggerFactory.getLogger(PartStops.class);

    private final Applier applier;
    private final PartTracker tracker;
    private final GpuHandover handover;
    private final PartStarts starts;
    private final SinkMetrics metrics;
    private final RetryPolicy retry;
    private final Executor workers;

    PartStops(final Applier applier, final PartTracker tracker, final GpuHandover handover, final PartStarts starts,
              final SinkMetrics metrics, final RetryPolicy retry, final Executor workers) {
        this.applier = applier;
        this.tracker = tracker;
        this.handover = handover;
        this.starts = starts;
        this.metrics = metrics;
        this.retry = retry;
        this.workers = workers;
    }

    /** Stops a part this caller {@link PartTracker#claim claimed}. */
    void stop(final JobPart part, final PendingStop stop) {
        final GpuHandover.Stop gpus = handover.stopping(part);
        // A part whose start still waits for its GPUs is stopped after that start, which skips a claimed
        // part; stopping it before could leave a process started after its stop, that nothing stops.
        starts.startOver(part).thenRunAsync(() -> finish(part, stop, gpus), workers).exceptionally(error -> {
            LOG.warn("stop of {} not run: {}; the next sink process does it, its GPUs stay held until then",
                    part.key(), error.toString());
            handover.finished(gpus, false);
            return null;
        });
    }

    private void finish(final JobPart part, final PendingStop stop, final GpuHandover.Stop gpus) {
        handover.began(gpus);
        boolean gone = false;
        try {
            final Optional<Outcome> outcome = retry.run(() -> applier.stop(part, stop.reason()),
                    attempt -> metrics.retried(stop.type()));
            gone = true;
            final JobEventType type = NodeCommandType.EVICT.name().equals(stop.type())
                    ? JobEventType.EVICTED : JobEventType.RELEASED;
            final Integer code = outcome.flatMap(o -> o.exitCode().isPresent()
                    ? Optional.of(o.exitCode().getAsInt()) : Optional.empty()).orElse(null);
            tracker.settle(part, JobEvents.stopped(part, type, stop.commandId(), stop.decisionId(), Instant.now(), code,
                    outcome.map(Outcome::describe).orElse(stop.reason())));
            tracker.stopped(part);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (final Exception e) {
            metrics.failed(stop.type());
            LOG.error("could not stop {} ({}): {}; it may still run, its GPUs stay held", part.key(), stop.type(),
                    e.toString());
        } finally {
            // After the event: a part waiting for these GPUs reports STARTED after this one's end.
            // Not gone: they stay held, and the parts waiting for them are refused.
            handover.finished(gpus, gone);
        }
    }
}
