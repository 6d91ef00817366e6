package io.gpupool.sink;

import io.gpupool.avro.ExecSpec;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.serde.SpecificAvroSerde;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

/** Topics of their own, commands in through the real serde, events and dead letters out, for one broker test. */
final class SinkTestKit implements AutoCloseable {

    final TestStack stack;
    final String commands;
    final String events;
    final String dlq;
    final TopicCatalog catalog;
    private final KafkaProducer<String, NodeCommand> producer;
    private final KafkaProducer<byte[], byte[]> rawProducer;
    private final KafkaConsumer<String, JobEvent> eventConsumer;
    private final List<JobEvent> seen = new ArrayList<>();
    /** How much longer than a window a {@code during} wait may take: one consumer poll past its end. */
    private static final Duration WAIT_SLACK = Duration.ofSeconds(5);

    SinkTestKit(final TestStack stack, final int partitions) throws Exception {
        this.stack = stack;
        this.commands = stack.uniqueName("node-commands");
        this.events = stack.uniqueName("job-events");
        this.dlq = stack.uniqueName("dlq");
        try (Admin admin = Admin.create(stack.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(commands, partitions, (short) 1), new NewTopic(events, 3, (short) 1),
                    new NewTopic(dlq, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        this.catalog = TopicCatalog.defaults().withOverrides(Map.of("gpupool.topic.node-commands.name", commands,
                "gpupool.topic.job-events.name", events, "gpupool.topic.dlq.name", dlq));
        final Map<String, Object> serde = Map.of(RegistryClientConfig.URL, stack.requireRegistryUrl());
        this.producer = new KafkaProducer<>(stack.producerConfig(), new StringSerializer(),
                SpecificAvroSerde.forValues(NodeCommand.class, serde).serializer());
        this.rawProducer = new KafkaProducer<>(stack.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
        this.eventConsumer = new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("events-reader")),
                new StringDeserializer(), SpecificAvroSerde.forValues(JobEvent.class, serde).deserializer());
        eventConsumer.subscribe(List.of(events));
    }

    SinkConfig config(final Path stateDir) {
        return SinkConfig.defaults(stack.bootstrapServers(), stack.requireRegistryUrl(), stateDir)
                .withTopics(catalog).withGroupId(stack.uniqueName("sink"))
                .withRetry(new RetryPolicy(3, Duration.ofMillis(50), Duration.ofMillis(200)));
    }

    static NodeCommand allocate(final String job, final String node, final long runtimeMillis, final List<String> command,
                                final int... gpus) {
        final List<GpuAssignment> g = new ArrayList<>();
        for (final int i : gpus) {
            g.add(new GpuAssignment("GPU-" + node + "-" + i, i, 1000));
        }
        return NodeCommand.newBuilder().setCommandId("alloc-" + job + "-" + node).setDecisionId("place-" + job)
                .setPlacementId("place-" + job)
                .setType(NodeCommandType.ALLOCATE).setNodeId(node).setJobId(job).setPool("pool-a").setGpus(g)
                .setGangNodes(List.of(node)).setRuntimeEstimateMillis(runtimeMillis)
                .setExec(command.isEmpty() ? null : ExecSpec.newBuilder().setCommand(command).build())
                .setCause(new JournalPosition(0, 7L, Instant.now())).build();
    }

    /** A stop of the job's placement made by {@link #allocate} (placement "place-JOB"). */
    static NodeCommand stop(final NodeCommandType type, final String job, final String node, final String reason) {
        return NodeCommand.newBuilder().setCommandId(type.name().toLowerCase() + "-" + job + "-" + node)
                .setDecisionId(type.name().toLowerCase() + "-" + job).setPlacementId("place-" + job)
                .setType(type).setNodeId(node).setJobId(job)
                .setPool("pool-a").setReason(reason).setCause(new JournalPosition(0, 8L, Instant.now())).build();
    }

    void send(final NodeCommand c) throws Exception {
        producer.send(new ProducerRecord<>(commands, c.getNodeId(), c)).get(30, TimeUnit.SECONDS);
    }

    void sendRaw(final String key, final byte[] value) throws Exception {
        rawProducer.send(new ProducerRecord<>(commands, key.getBytes(), value)).get(30, TimeUnit.SECONDS);
    }

    /** All events read so far, polling until {@code until} holds for them or the timeout passes. */
    List<JobEvent> eventsUntil(final Predicate<List<JobEvent>> until, final Duration timeout) {
        return readEvents(await("events").atMost(timeout), until, "events did not arrive within " + timeout);
    }

    /**
     * All events read by the end of {@code window}, failing if {@code holds} stops holding for them
     * (it cannot hold again: events only accumulate). The window is the time in which an unwanted
     * event (a duplicate, another node's) would have arrived.
     */
    List<JobEvent> eventsWhile(final Predicate<List<JobEvent>> holds, final Duration window) {
        return readEvents(await("events").during(window).atMost(window.plus(WAIT_SLACK)), holds,
                "events stopped holding within " + window);
    }

    private List<JobEvent> readEvents(final ConditionFactory await, final Predicate<List<JobEvent>> until, final String failure) {
        try {
            await.until(() -> {
                for (final ConsumerRecord<String, JobEvent> r : eventConsumer.poll(Duration.ofMillis(200))) {
                    seen.add(r.value());
                }
                return until.test(seen);
            });
        } catch (final ConditionTimeoutException e) {
            throw new AssertionError(failure + "; got " + describe(seen), e);
        }
        return List.copyOf(seen);
    }

    /** Polls on this thread: a Kafka consumer is not to be used from Awaitility's own poller thread. */
    private static ConditionFactory await(final String what) {
        return Awaitility.await(what).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10));
    }

    static boolean has(final List<JobEvent> events, final String job, final String type) {
        return events.stream().anyMatch(e -> e.getJobId().equals(job) && e.getType().name().equals(type));
    }

    static long count(final List<JobEvent> events, final String job, final String type) {
        return events.stream().filter(e -> e.getJobId().equals(job) && e.getType().name().equals(type)).count();
    }

    static String describe(final List<JobEvent> events) {
        return events.stream().map(e -> e.getJobId() + ":" + e.getType()).toList().toString();
    }

    /** The first {@code atLeast} dead letters (or more), waiting up to {@code timeout} for them. */
    List<ConsumerRecord<byte[], byte[]>> deadLetters(final int atLeast, final Duration timeout) {
        return readDeadLetters(await("at least " + atLeast + " dead letters").atMost(timeout), out -> out.size() >= atLeast);
    }

    /** Fails if a dead letter arrives within {@code window}. */
    void noDeadLettersDuring(final Duration window) {
        readDeadLetters(await("no dead letter").during(window).atMost(window.plus(WAIT_SLACK)), List::isEmpty);
    }

    private List<ConsumerRecord<byte[], byte[]>> readDeadLetters(final ConditionFactory await,
                                                                final Predicate<List<ConsumerRecord<byte[], byte[]>>> until) {
        final List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("dlq-reader")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(dlq));
            await.until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
                return until.test(out);
            });
        }
        return out;
    }

    @Override
    public void close() {
        producer.close();
        rawProducer.close();
        eventConsumer.close();
    }
}
