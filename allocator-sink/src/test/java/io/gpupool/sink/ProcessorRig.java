package io.gpupool.sink;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.events.JobEventPublisher;
import io.gpupool.sink.ledger.AppliedLedger;
import io.gpupool.sink.metrics.SinkMetrics;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A {@link CommandProcessor} as the sink runs it (its ledger, tracker, publisher and metrics), with
 * Kafka replaced by a MockProducer: events are seen in the order they were handed over, and with
 * {@code autoAck} false Kafka acknowledges them only when the test says so.
 */
final class ProcessorRig implements AutoCloseable {

    final AppliedLedger ledger;
    final MockProducer<String, JobEvent> producer;
    final List<JobEvent> events = new CopyOnWriteArrayList<>();
    final SinkMetrics metrics;
    final PartTracker tracker;
    final CommandProcessor processor;

    ProcessorRig(final Path stateDir, final ScriptedApplier applier, final RetryPolicy retry, final int stopThreads,
                 final boolean autoAck) throws Exception {
        this.ledger = AppliedLedger.open(stateDir);
        this.producer = new MockProducer<>(autoAck, null, new StringSerializer(), (topic, event) -> new byte[0]);
        this.metrics = new SinkMetrics(applier.name());
        final JobEventPublisher publisher = new JobEventPublisher(producer, "job-events", events::add);
        this.tracker = new PartTracker(ledger, publisher);
        this.processor = new CommandProcessor(applier, ledger, tracker, publisher, metrics, retry,
                Duration.ofSeconds(10), stopThreads);
    }

    static ProcessorRig of(final Path stateDir, final ScriptedApplier applier) throws Exception {
        return new ProcessorRig(stateDir, applier, new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(20)),
                SinkConfig.DEFAULT_STOP_THREADS, true);
    }

    void handle(final NodeCommand c) throws InterruptedException {
        processor.handle(c, System.currentTimeMillis());
    }

    /** An ALLOCATE of one part, on the node's GPUs {@code GPU-NODE-i}; {@code placement} may be null. */
    static NodeCommand allocate(final String commandId, final String job, final String node, final String decision,
                                final String placement, final int... gpus) {
        final List<GpuAssignment> g = new ArrayList<>();
        for (final int i : gpus) {
            g.add(new GpuAssignment("GPU-" + node + "-" + i, i, 1000));
        }
        return NodeCommand.newBuilder().setCommandId(commandId).setDecisionId(decision).setPlacementId(placement)
                .setType(NodeCommandType.ALLOCATE).setNodeId(node).setJobId(job).setPool("p").setGpus(g)
                .setGangNodes(List.of(node)).setCause(new JournalPosition(0, 1L, Instant.now())).build();
    }

    /** An EVICT or RELEASE of the job's part on the node, naming {@code placement} (null: none). */
    static NodeCommand stop(final NodeCommandType type, final String commandId, final String job, final String node,
                            final String placement) {
        return NodeCommand.newBuilder().setCommandId(commandId).setDecisionId("d-" + commandId).setPlacementId(placement)
                .setType(type).setNodeId(node).setJobId(job).setPool("p")
                .setReason(type.name().toLowerCase(Locale.ROOT) + " by test")
                .setCause(new JournalPosition(0, 2L, Instant.now())).build();
    }

    Optional<JobEvent> event(final String eventId) {
        return events.stream().filter(e -> e.getEventId().equals(eventId)).findFirst();
    }

    int indexOf(final String eventId) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).getEventId().equals(eventId)) {
                return i;
            }
        }
        return -1;
    }

    /** The event with this id, waiting for it up to {@code timeout}. */
    JobEvent await(final String eventId, final Duration timeout) throws InterruptedException {
        awaitUntil(r -> r.event(eventId).isPresent(), timeout, "event " + eventId);
        return event(eventId).orElseThrow();
    }

    void awaitUntil(final Predicate<ProcessorRig> condition, final Duration timeout, final String what) {
        try {
            Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(5)).until(() -> condition.test(this));
        } catch (final ConditionTimeoutException e) {
            throw new AssertionError(what + " not within " + timeout + "; events: "
                    + events.stream().map(JobEvent::getEventId).toList(), e);
        }
    }

    @Override
    public void close() throws Exception {
        processor.close();
        ledger.close();
    }
}
