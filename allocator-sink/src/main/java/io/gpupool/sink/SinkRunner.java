package io.gpupool.sink;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeCommand;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.RecordDecodeException;
import io.gpupool.serde.RecordDecoder;
import io.gpupool.serde.SpecificAvroSerde;
import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.PartKey;
import io.gpupool.sink.events.JobEventPublisher;
import io.gpupool.sink.ledger.AppliedLedger;
import io.gpupool.sink.metrics.SinkMetrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code gpupool sink}: consumes gpupool.node-commands, applies each command once through an
 * {@link Applier} and reports JobEvents on gpupool.job-events. Offsets are committed only after a
 * poll's commands are applied, recorded in the ledger and their events flushed; bad records go to
 * gpupool.dlq and the sink carries on.
 *
 * <pre>
 *   SinkRunner sink = SinkRunner.create(config, new SimulatedApplier(60, Duration.ofMinutes(10)));
 *   sink.addListener(listener);   // e.g. gpus -> busyGpus.set(gpus)
 *   sink.start();
 *   ...
 *   sink.close();
 * </pre>
 *
 * <p>As a node agent ({@link SinkConfig#forNode}) it reads only the partition its node id hashes
 * to, so it reads about 1/partitions of the topic and drops the other nodes' commands there; with
 * ownPartitionOnly=false it reads the whole topic (every agent reads every command).
 */
public final class SinkRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SinkRunner.class);
    private static final long REGISTRY_BACKOFF_MILLIS = 1_000;

    private final SinkConfig config;
    private final Applier applier;
    private final SinkMetrics metrics;
    private final AppliedLedger ledger;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProducer<String, JobEvent> eventProducer;
    private final KafkaProducer<byte[], byte[]> dlqProducer;
    private final PartTracker tracker;
    private final CommandProcessor processor;
    private final DeadLetterQueue dlq;
    private final RecordDecoder<NodeCommand> decoder;
    private final Thread thread;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean closing;
    private volatile boolean started;

    private SinkRunner(final SinkConfig config, final Applier applier) throws IOException {
        this.config = config;
        this.applier = applier;
        this.metrics = new SinkMetrics(applier.name());
        this.ledger = AppliedLedger.open(config.stateDir());
        final Map<String, Object> serdeConfig = AvroSerdeConfig.forClient(config.clientProperties(), config.registryUrl());
        this.decoder = new RecordDecoder<>(SpecificAvroSerde.forValues(NodeCommand.class, serdeConfig).deserializer());
        this.consumer = new KafkaConsumer<>(consumerProperties(config), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        this.eventProducer = new KafkaProducer<>(producerProperties(config), new StringSerializer(),
                SpecificAvroSerde.forValues(JobEvent.class, serdeConfig).serializer());
        this.dlqProducer = new KafkaProducer<>(producerProperties(config), new ByteArraySerializer(),
                new ByteArraySerializer());
        final JobEventPublisher publisher = new JobEventPublisher(eventProducer, config.eventsTopic(), this::onEvent);
        this.tracker = new PartTracker(ledger, publisher);
        this.processor = new CommandProcessor(applier, ledger, tracker, publisher, metrics, config.retry(),
                config.stopWait(), config.stopThreads());
        this.dlq = new DeadLetterQueue(dlqProducer, config.dlqTopic(), "allocator-sink/" + config.groupId());
        this.metrics.bindRunning(tracker::running);
        this.thread = new Thread(this::run, "sink-" + config.node().orElse("all"));
    }

    /** A sink that is not consuming yet: add listeners, then {@link #start}. */
    public static SinkRunner create(final SinkConfig config, final Applier applier) throws IOException {
        return new SinkRunner(config, applier);
    }

    public SinkRunner addListener(final SinkListener listener) {
        tracker.addListener(listener);
        return this;
    }

    /** Resumes what the ledger says was running, then consumes on its own thread; returns once assigned or subscribed. */
    public SinkRunner start() throws InterruptedException {
        processor.recover();
        started = true;
        thread.start();
        ready.await();
        return this;
    }

    private void onEvent(final JobEvent event) {
        metrics.event(event.getType().name());
        tracker.listeners().forEach(l -> l.eventPublished(event));
    }

    private static Properties consumerProperties(final SinkConfig config) {
        final Properties p = new Properties();
        p.putAll(config.clientProperties());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return p;
    }

    private static Properties producerProperties(final SinkConfig config) {
        final Properties p = new Properties();
        p.putAll(config.clientProperties());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return p;
    }

    private void run() {
        try {
            subscribe();
            ready.countDown();
            while (!closing) {
                pollOnce();
            }
        } catch (final WakeupException e) {
            if (!closing) {
                failure.set(e);
            }
        } catch (final Throwable t) {
            failure.set(t);
            LOG.error("sink stopped on an error", t);
        } finally {
            ready.countDown();
            consumer.close();
        }
    }

    private void subscribe() {
        final String topic = config.commandsTopic();
        if (config.node().isPresent() && config.ownPartitionOnly()) {
            final List<PartitionInfo> partitions = consumer.partitionsFor(topic);
            if (partitions == null || partitions.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " does not exist; run `gpupool topics`");
            }
            final int p = partitionOf(config.node().get(), partitions.size());
            LOG.info("node agent for {} reads {}-{} only", config.node().get(), topic, p);
            consumer.assign(List.of(new TopicPartition(topic, p)));
        } else {
            consumer.subscribe(List.of(topic));
        }
    }

    /** The partition Kafka's default partitioner gives a record keyed by this node id (as a UTF-8 string). */
    public static int partitionOf(final String nodeId, final int partitions) {
        return Utils.toPositive(Utils.murmur2(nodeId.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    private void pollOnce() throws InterruptedException {
        final ConsumerRecords<byte[], byte[]> records = consumer.poll(config.pollTimeout());
        final Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        boolean registryDown = false;
        for (final TopicPartition tp : records.partitions()) {
            for (final ConsumerRecord<byte[], byte[]> record : records.records(tp)) {
                if (!handle(record)) {
                    // Retriable (registry unreachable): read this record again after a pause.
                    consumer.seek(tp, record.offset());
                    registryDown = true;
                    break;
                }
                done.put(tp, new OffsetAndMetadata(record.offset() + 1));
            }
        }
        if (!done.isEmpty()) {
            // Ledger on disk, events and dead letters in Kafka, before the commands count as consumed.
            ledger.sync();
            eventProducer.flush();
            dlq.flush();
            try {
                consumer.commitSync(done);
            } catch (final CommitFailedException | RebalanceInProgressException e) {
                // The group moved our partitions on: their new owner gets these records again. If it is
                // this process, the ledger skips them; another sink process (its own ledger) would apply
                // them again, which is why each node's commands belong to one sink at a time.
                LOG.warn("offset commit failed ({}); records will be redelivered", e.toString());
            }
        }
        if (registryDown) {
            Thread.sleep(REGISTRY_BACKOFF_MILLIS);
        }
    }

    /** False when the record must be read again later. */
    private boolean handle(final ConsumerRecord<byte[], byte[]> record) throws InterruptedException {
        final NodeCommand command;
        try {
            command = decoder.value(record);
            CommandValidation.check(command);
        } catch (final RecordDecodeException e) {
            if (e.retriable()) {
                LOG.warn("cannot decode {}-{}@{} yet: {}", record.topic(), record.partition(), record.offset(),
                        e.getMessage());
                return false;
            }
            deadLetter(record, e);
            return true;
        } catch (final CommandValidation.InvalidCommandException | SerializationException e) {
            deadLetter(record, e);
            return true;
        }
        if (config.node().isPresent() && !config.node().get().equals(command.getNodeId())) {
            return true; // another node's command on our partition
        }
        processor.handle(command, record.timestamp());
        return true;
    }

    private void deadLetter(final ConsumerRecord<byte[], byte[]> record, final Exception e) {
        LOG.warn("dead-lettering {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), e.getMessage());
        dlq.send(record, e);
        metrics.deadLettered();
    }

    public SinkMetrics metrics() {
        return metrics;
    }

    public Applier applier() {
        return applier;
    }

    /** The job parts running now, by job and node. */
    public Map<PartKey, JobPart> running() {
        return tracker.snapshot();
    }

    /** GPUs that run at least one part now. */
    public Set<String> busyGpuUuids() {
        return Set.copyOf(tracker.busyGpus());
    }

    /** The error that stopped the consumer thread, if it stopped on one. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    public boolean isRunning() {
        return thread.isAlive();
    }

    /** Blocks until the consumer thread has ended: on a failure (see {@link #failure}) or after {@link #close}. */
    public void awaitStopped() throws InterruptedException {
        thread.join();
    }

    /**
     * Stops consuming and waits for stops in progress; running parts are left running (a restarted
     * sink adopts them from the ledger), except that the simulated applier's timers end with it.
     */
    @Override
    public void close() throws IOException {
        closing = true;
        try {
            if (started) {
                consumer.wakeup();
                thread.join();
            } else {
                consumer.close();
            }
            processor.close();
        } catch (final InterruptedException e) {
            // Closing anyway; the caller's thread keeps its interrupt.
            Thread.currentThread().interrupt();
        }
        eventProducer.close();
        dlqProducer.close();
        applier.close();
        ledger.close();
    }
}
