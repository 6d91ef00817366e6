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
import java.util.Locale;
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
        final long start = System.currentTimeMillis();
        long submitted = 0;
        long finished = 0;
        long lastFinish = start;
        long nextProgress = start + 5_000;
        while (finished < count) {
            while (submitted < count && submitted - finished < inFlight) {
                final String id = jobId(first + (int) submitted++);
                jobs.send(new ProducerRecord<>(jobsTopic, null, System.currentTimeMillis(), id,
                        BenchFabric.submit(pool, id, 1)));
            }
            for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(20))) {
                decisionRecords++;
                final DecisionOutcome outcome = r.value().getOutcome();
                if (outcome == DecisionOutcome.PLACED || outcome == DecisionOutcome.REJECTED) {
                    decided++;
                }
                if (outcome == DecisionOutcome.PLACED && complete) {
                    final long now = System.currentTimeMillis();
                    events.send(new ProducerRecord<>(eventsTopic, null, now, r.key(), JobEvent.newBuilder()
                            .setJobId(r.key()).setEventId("done-" + r.key()).setType(JobEventType.COMPLETED)
                            .setPlacementId(r.value().getDecisionId()).setOccurredAt(Instant.ofEpochMilli(now)).build()));
                } else if (outcome != DecisionOutcome.QUEUED) {
                    finished++;
                    lastFinish = System.currentTimeMillis();
                }
            }
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
