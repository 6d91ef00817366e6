package io.gpupool.sink;

import io.gpupool.avro.JobEventType;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one decoded node command, once: skips ids the ledger knows, records the command in the
 * ledger before touching the node (so a crash can never make it run twice), reports APPLIED, then
 * starts the part (ALLOCATE, with retries; FAILED when they run out) or stops it (EVICT, RELEASE).
 * Stops run on their own threads: a grace period must not hold up the other nodes' commands. A stop
 * ends only the part of the placement it names: a late stop of a job's earlier placement leaves the
 * part running now alone.
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
    private final RetryPolicy retry;
    private final Duration stopWait;
    private final ExecutorService stoppers = Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "sink-stop");
        t.setDaemon(true);
        return t;
    });

    CommandProcessor(final Applier applier, final AppliedLedger ledger, final PartTracker tracker,
                     final JobEventPublisher publisher, final SinkMetrics metrics, final RetryPolicy retry,
                     final Duration stopWait) {
        this.applier = applier;
        this.ledger = ledger;
        this.tracker = tracker;
        this.publisher = publisher;
        this.metrics = metrics;
        this.retry = retry;
        this.stopWait = stopWait;
    }

    /** Resumes the parts a previous sink process left running, and finishes its interrupted stops. */
    void recover() {
        for (final ActivePart a : ledger.unsettled()) {
            if (a.outcome().isPresent()) {
                // It had ended and its event may not have reached Kafka: send the same event again.
                tracker.settle(a.part(), JobEvents.ofOutcome(a.part(), a.outcome().get(), Instant.now()));
            } else if (a.pendingStop().isPresent()) {
                applier.recover(a.part(), a.pid(), a.startedAtMillis(), IGNORE);
                final JobPart part = a.part();
                final PendingStop stop = a.pendingStop().get();
                stoppers.execute(() -> finishStop(part, stop));
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
        try {
            retry.run(() -> {
                applier.allocate(part, tracker);
                return null;
            }, attempt -> {
                metrics.retried(c.getType().name());
                LOG.warn("attempt {} to start {} failed; retrying", attempt, part.key());
            });
            metrics.applied(c.getType().name(), Duration.ofNanos(System.nanoTime() - t0),
                    System.currentTimeMillis() - recordTimestamp);
        } catch (final InterruptedException e) {
            throw e;
        } catch (final Exception e) {
            metrics.failed(c.getType().name());
            LOG.warn("could not start {}: {}", part.key(), e.toString());
            tracker.ended(part, Outcome.lost("could not start on " + part.nodeId() + ": " + e));
        }
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
        final PendingStop stop = new PendingStop(c.getCommandId(), type, c.getDecisionId(), named,
                c.getReason() == null ? type.toLowerCase(Locale.ROOT) : c.getReason());
        stoppers.execute(() -> finishStop(part.get(), stop));
    }

    /**
     * Stops the part and reports how it ended once it is gone: EVICTED for an EVICT, RELEASED for a
     * RELEASE (a gang's other ranks after one ended), so the event tells when the part really stopped.
     * Settled like every terminal event: outcome in the ledger first, settled once Kafka has it.
     */
    private void finishStop(final JobPart part, final PendingStop stop) {
        try {
            final Optional<Outcome> outcome = retry.run(() -> applier.stop(part, stop.reason()),
                    attempt -> metrics.retried(stop.type()));
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
            // Left unsettled in the ledger: the next sink process tries the stop again.
            metrics.failed(stop.type());
            LOG.error("could not stop {} ({}): {}", part.key(), stop.type(), e.toString());
        }
    }

    /** Waits for stops in progress (grace periods), up to the configured wait. */
    void close() throws InterruptedException {
        stoppers.shutdown();
        if (!stoppers.awaitTermination(stopWait.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.warn("stops still in progress after {}; leaving them", stopWait);
            stoppers.shutdownNow();
        }
    }
}
