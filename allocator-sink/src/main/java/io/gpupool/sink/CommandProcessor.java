package io.gpupool.sink;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.Outcome;
import io.gpupool.sink.apply.PartKey;
import io.gpupool.sink.apply.PartObserver;
import io.gpupool.sink.events.JobEventPublisher;
import io.gpupool.sink.events.JobEvents;
import io.gpupool.sink.ledger.ActivePart;
import io.gpupool.sink.ledger.ActivePart.PendingStop;
import io.gpupool.sink.ledger.AppliedLedger;
import io.gpupool.sink.metrics.SinkMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one decoded node command, once: skips ids the ledger knows, records the command in the
 * ledger before touching the node (so a crash can never make it run twice), reports APPLIED, then
 * starts the part (ALLOCATE, see {@link PartStarts}) or stops it (EVICT, RELEASE, see
 * {@link PartStops}). A stop ends only the part of the placement it names: a late stop of a job's
 * earlier placement leaves the part running now alone.
 *
 * <p>Stops, and the starts that wait for a stop on their GPUs, run on a pool of
 * {@link SinkConfig#stopThreads} threads; more queue for a free thread, up to a bound ({@link StopWorkers}).
 */
final class CommandProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(CommandProcessor.class);
    private static final PartObserver IGNORE = new PartObserver() {
        @Override
        public void started(final JobPart part, final long pid) {
        }

        @Override
        public void ended(final JobPart part, final Outcome outcome) {
        }
    };

    private final Applier applier;
    private final AppliedLedger ledger;
    private final PartTracker tracker;
    private final JobEventPublisher publisher;
    private final SinkMetrics metrics;
    private final Duration stopWait;
    private final ThreadPoolExecutor workers;
    private final PartStarts starts;
    private final PartStops stops;

    CommandProcessor(final Applier applier, final AppliedLedger ledger, final PartTracker tracker,
                     final JobEventPublisher publisher, final SinkMetrics metrics, final RetryPolicy retry,
                     final Duration stopWait, final int stopThreads) {
        this.applier = applier;
        this.ledger = ledger;
        this.tracker = tracker;
        this.publisher = publisher;
        this.metrics = metrics;
        this.stopWait = stopWait;
        this.workers = StopWorkers.create(stopThreads);
        final GpuHandover handover = new GpuHandover(retry.worstCase(applier.longestStop()));
        this.starts = new PartStarts(applier, tracker, handover, metrics, retry, workers);
        this.stops = new PartStops(applier, tracker, handover, starts, metrics, retry, workers);
    }

    /** Resumes the parts a previous sink process left running, and finishes its interrupted stops. */
    void recover() {
        for (final ActivePart a : ledger.unsettled()) {
            if (a.outcome().isPresent()) {
                // It had ended and its event may not have reached Kafka: send the same event again.
                tracker.settle(a.part(), JobEvents.ofOutcome(a.part(), a.outcome().get(), Instant.now()));
            } else if (a.pendingStop().isPresent()) {
                applier.recover(a.part(), a.pid(), a.startedAtMillis(), IGNORE);
                stops.stop(a.part(), a.pendingStop().get());
            } else {
                tracker.register(a.part());
                applier.recover(a.part(), a.pid(), a.startedAtMillis(), tracker);
            }
        }
    }

    /** Applies a valid command (see {@link CommandValidation}); a command id seen before does nothing. */
    void handle(final NodeCommand c, final long recordTimestamp) throws InterruptedException {
        final String type = c.getType().name();
        if (ledger.isApplied(c.getCommandId())) {
            metrics.duplicate(type);
            LOG.debug("skipping {} {}: applied before", type, c.getCommandId());
            return;
        }
        final long t0 = System.nanoTime();
        if (c.getType() == NodeCommandType.ALLOCATE) {
            allocate(c, t0, recordTimestamp);
        } else {
            stop(c, t0, recordTimestamp);
        }
    }

    private void allocate(final NodeCommand c, final long t0, final long recordTimestamp) throws InterruptedException {
        final JobPart part = JobPart.of(c);
        // Ledger first: after a crash from here on, a restart reports this part lost, never starts it twice.
        ledger.applied(c, Optional.of(part), System.currentTimeMillis());
        publisher.publish(JobEvents.applied(c, part.placementId(), Instant.now()));
        tracker.register(part);
        starts.start(part, t0, recordTimestamp);
    }

    private void stop(final NodeCommand c, final long t0, final long recordTimestamp) {
        final String type = c.getType().name();
        final Optional<JobPart> part = tracker.current(new PartKey(c.getJobId(), c.getNodeId()));
        final String named = c.getPlacementId();
        ledger.applied(c, Optional.empty(), System.currentTimeMillis());
        publisher.publish(JobEvents.applied(c, named != null ? named : part.map(JobPart::placementId).orElse(null),
                Instant.now()));
        metrics.applied(type, Duration.ofNanos(System.nanoTime() - t0), System.currentTimeMillis() - recordTimestamp);
        if (part.isPresent() && named != null && !named.equals(part.get().placementId())) {
            // E.g. the EVICT of a placement that already ended, arriving after the job was placed here again.
            metrics.staleStop(type);
            LOG.debug("{} {} names placement {}, but {} runs placement {}: left running", type, c.getCommandId(), named,
                    part.get().key(), part.get().placementId());
            return;
        }
        if (part.isEmpty() || !tracker.claim(part.get())) {
            return; // not running here (any more): e.g. the RELEASE after this node's part completed
        }
        stops.stop(part.get(), new PendingStop(c.getCommandId(), type, c.getDecisionId(), named,
                c.getReason() == null ? type.toLowerCase(Locale.ROOT) : c.getReason()));
    }

    /** Waits for stops in progress (grace periods), up to the configured wait. */
    void close() throws InterruptedException {
        workers.shutdown();
        if (!workers.awaitTermination(stopWait.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.warn("stops still in progress after {}; leaving them", stopWait);
            workers.shutdownNow();
        }
    }
}
