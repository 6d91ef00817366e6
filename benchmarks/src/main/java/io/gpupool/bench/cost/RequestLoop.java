package io.gpupool.bench.cost;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.bench.pipeline.BenchFabric;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The bench as user and sink: submits 1-GPU jobs, at most {@code inFlight} not yet finished, and (when it completes
 * jobs) reports each placed job COMPLETED at once, as the soak bench does. A request is decided by its first
 * decision that is not QUEUED; it is finished once decided and, when completing, released.
 */
final class RequestLoop {
    private static final long STALL_MS = 120_000;

    private final String pool;
    private final String jobsTopic;
    private final String eventsTopic;
    private final KafkaProducer<String, JobCommand> jobs;
    private final KafkaProducer<String, JobEvent> events;
    private final KafkaConsumer<String, PlacementDecision> decisions;
    private final boolean complete;
    private final int inFlight;
    private final PrintStream progress;
    private long decided;
    /** Placement ids of the jobs {@link #fill} saw placed. */
    private final Map<String, String> holding = new HashMap<>();
    private long decisionRecords;

    RequestLoop(final String pool, final String jobsTopic, final String eventsTopic,
                final KafkaProducer<String, JobCommand> jobs, final KafkaProducer<String, JobEvent> events,
                final KafkaConsumer<String, PlacementDecision> decisions, final boolean complete, final int inFlight,
                final PrintStream progress) {
        this.pool = pool;
        this.jobsTopic = jobsTopic;
        this.eventsTopic = eventsTopic;
        this.jobs = jobs;
        this.events = events;
        this.decisions = decisions;
        this.complete = complete;
        this.inFlight = inFlight;
        this.progress = progress;
    }

    /** Requests decided so far (submits whose decision was PLACED or REJECTED). */
    long decided() {
        return decided;
    }

    /** Decision records read so far, QUEUED and RELEASED included. */
    long decisionRecords() {
        return decisionRecords;
    }

    /** Submits jobs {@code first} .. {@code first + count - 1} and returns once every one of them is finished. */
    void run(final int first, final int count, final String phase) {
        final Watch w = new Watch(phase, count);
        long submitted = 0;
        while (w.finished < count) {
            while (submitted < count && submitted - w.finished < inFlight) {
                submit(jobId(first + (int) submitted++));
            }
            for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(20))) {
                decisionRecords++;
                final DecisionOutcome outcome = r.value().getOutcome();
                if (outcome == DecisionOutcome.PLACED || outcome == DecisionOutcome.REJECTED) {
                    decided++;
                }
                if (outcome == DecisionOutcome.PLACED && complete) {
                    complete(r);
                } else if (outcome != DecisionOutcome.QUEUED) {
                    w.finishedOne();
                }
            }
            w.tick();
        }
    }

    /**
     * Submits {@code count} jobs named {@code prefix-0..} at once and returns when each has had a decision of
     * {@code outcome} (PLACED: jobs that hold the pool; QUEUED: jobs that wait). Nothing is completed.
     */
    void fill(final String prefix, final int count, final DecisionOutcome outcome) {
        final Watch w = new Watch(prefix + " " + outcome.name().toLowerCase(Locale.ROOT), count);
        for (int i = 0; i < count; i++) {
            submit(prefix + "-" + i);
        }
        jobs.flush();
        final Set<String> seen = new HashSet<>();
        while (w.finished < count) {
            for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(20))) {
                if (r.key().startsWith(prefix + "-") && r.value().getOutcome() == outcome) {
                    if (seen.add(r.key())) {
                        w.finishedOne();
                    }
                    if (outcome == DecisionOutcome.PLACED) {
                        holding.put(r.key(), r.value().getDecisionId().toString());
                    }
                } else if (r.value().getOutcome() != DecisionOutcome.QUEUED) {
                    throw new IllegalStateException("while filling with " + prefix + " jobs: " + r.key() + " was "
                            + r.value().getOutcome() + " (" + r.value().getReasonCode() + ")");
                }
            }
            w.tick();
        }
    }

    /**
     * With the pool held by {@code holders} jobs and a queue of {@code waitingPrefix} jobs: completes {@code inFlight}
     * holders, then completes every job placed, so that each release starts the next waiting job; returns once
     * {@code count} waiting jobs have been placed and released. Only those are counted as decided.
     */
    void drain(final String holders, final String waitingPrefix, final int count, final String phase) {
        final Watch w = new Watch(phase, count);
        for (int i = 0; i < inFlight; i++) {
            final String id = holders + "-" + i;
            complete(id, holding.get(id));
        }
        while (w.finished < count) {
            for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(20))) {
                decisionRecords++;
                final DecisionOutcome outcome = r.value().getOutcome();
                final boolean waiting = r.key().startsWith(waitingPrefix + "-");
                if (waiting && (outcome == DecisionOutcome.PLACED || outcome == DecisionOutcome.REJECTED)) {
                    decided++;
                }
                if (outcome == DecisionOutcome.PLACED) {
                    complete(r);
                } else if (waiting && outcome != DecisionOutcome.QUEUED) {
                    w.finishedOne();
                }
            }
            w.tick();
        }
    }

    private void submit(final String id) {
        jobs.send(new ProducerRecord<>(jobsTopic, null, System.currentTimeMillis(), id, BenchFabric.submit(pool, id, 1)));
    }

    private void complete(final ConsumerRecord<String, PlacementDecision> placed) {
        complete(placed.key(), placed.value().getDecisionId().toString());
    }

    /** A COMPLETED report of the placement named. */
    private void complete(final String jobId, final String placementId) {
        final long now = System.currentTimeMillis();
        events.send(new ProducerRecord<>(eventsTopic, null, now, jobId, JobEvent.newBuilder()
                .setJobId(jobId).setEventId("done-" + jobId).setType(JobEventType.COMPLETED)
                .setPlacementId(placementId).setOccurredAt(Instant.ofEpochMilli(now)).build()));
    }

    /** Progress every 5 s, and a stall (no request finished for {@link #STALL_MS}) ends the bench. */
    private final class Watch {
        private final String phase;
        private final long count;
        private final long start = System.currentTimeMillis();
        private long finished;
        private long lastFinish = start;
        private long nextProgress = start + 5_000;

        Watch(final String phase, final long count) {
            this.phase = phase;
            this.count = count;
        }

        void finishedOne() {
            finished++;
            lastFinish = System.currentTimeMillis();
        }

        void tick() {
            final long now = System.currentTimeMillis();
            if (now >= nextProgress) {
                nextProgress += 5_000;
                progress.printf(Locale.ROOT, "cost: %s t=%ds finished=%d of %d%n", phase, (now - start) / 1000,
                        finished, count);
            }
            if (now - lastFinish > STALL_MS) {
                throw new IllegalStateException(phase + ": no request finished for " + STALL_MS / 1000 + " s ("
                        + finished + " of " + count + ")");
            }
        }
    }

    static String jobId(final int seq) {
        return "j-" + seq;
    }
}
