package io.gpupool.cli.up;

import io.gpupool.avro.PlacementDecision;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The jobs of one run of {@code gpupool up}, counted from what the scheduler decided (gpupool.decisions,
 * read_committed, from the beginning), whoever submitted them: the generator, {@code gpupool submit} or any
 * producer. A job is the run's when its first decision is caused by a journal entry of the run (at or after
 * {@code runStartMs}); a job still waiting or running from an earlier run, which is decided again after a
 * restart, is not counted a second time. Only live jobs are remembered (a finished job leaves the map), so
 * a long history costs its live jobs, not every job it ever had.
 */
public final class DecisionTally implements AutoCloseable {
    /** What the tally counts: jobs submitted (decided), placed at least once, ended each way; evictions. */
    public enum Count { SUBMITTED, PLACED, COMPLETED, FAILED, CANCELLED, REJECTED, EVICTED }

    /** A live job: whether it is this run's and whether it was placed yet. */
    private static final class Live {
        final boolean thisRun;
        boolean placed;

        Live(final boolean thisRun) {
            this.thisRun = thisRun;
        }
    }

    private final long runStartMs;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Deserializer<PlacementDecision> decoder;
    private final String topic;
    private final Map<String, Live> live = new HashMap<>();
    private final AtomicLongArray counts = new AtomicLongArray(Count.values().length);
    private final Thread thread;

    public DecisionTally(final Properties client, final String registryUrl, final String topic, final long runStartMs) {
        this.runStartMs = runStartMs;
        this.topic = topic;
        final Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        this.decoder = SpecificAvroSerde.forValues(PlacementDecision.class, AvroSerdeConfig.forClient(client, registryUrl))
                .deserializer();
        this.thread = new Thread(this::run, "gpupool-up-decisions");
        thread.setDaemon(true);
    }

    public DecisionTally start() {
        thread.start();
        return this;
    }

    /** The counts so far, by {@link Count}. */
    public long count(final Count c) {
        return counts.get(c.ordinal());
    }

    private void run() {
        try {
            List<PartitionInfo> infos = List.of();
            while (infos == null || infos.isEmpty()) { // the topic may not exist before the scheduler creates it
                infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
            }
            final List<TopicPartition> partitions = new ArrayList<>();
            infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (true) {
                for (final ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() != null) {
                        decided(decoder.deserialize(topic, r.value()));
                    }
                }
            }
        } catch (final WakeupException closing) {
            // close() ends the loop
        } catch (final RuntimeException e) {
            System.err.println("gpupool up: decision counts stopped: " + e);
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    void decided(final PlacementDecision d) {
        final String job = d.getJobId();
        Live j = live.get(job);
        if (j == null) {
            j = new Live(d.getCause().getTimestamp().toEpochMilli() >= runStartMs);
            live.put(job, j);
            add(j, Count.SUBMITTED);
        }
        switch (d.getOutcome()) {
            case PLACED -> {
                if (!j.placed) {
                    j.placed = true;
                    add(j, Count.PLACED);
                }
            }
            case EVICTED -> add(j, Count.EVICTED);
            case RELEASED -> ended(job, j, "FAILED".equals(d.getReasonCode()) ? Count.FAILED : Count.COMPLETED);
            case CANCELLED -> ended(job, j, Count.CANCELLED);
            case REJECTED -> ended(job, j, Count.REJECTED);
            default -> {
            }
        }
    }

    private void ended(final String job, final Live j, final Count how) {
        add(j, how);
        live.remove(job);
    }

    private void add(final Live j, final Count c) {
        if (j.thisRun) {
            counts.incrementAndGet(c.ordinal());
        }
    }

    @Override
    public void close() throws InterruptedException {
        consumer.wakeup();
        thread.join(5_000);
    }
}
