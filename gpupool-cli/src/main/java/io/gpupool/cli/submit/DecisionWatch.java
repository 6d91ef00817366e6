package io.gpupool.cli.submit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Waits for a job's next decision on gpupool.decisions. Opened BEFORE the command is sent: it
 * remembers the end of the topic, so the decision cannot slip by between sending and reading.
 * No consumer group (nothing committed); reads only committed records (the scheduler is exactly-once).
 */
public final class DecisionWatch implements AutoCloseable {

    private final KafkaConsumer<String, byte[]> consumer;
    private final Deserializer<PlacementDecision> decoder;
    private final String topic;

    public DecisionWatch(final Properties client, final String registryUrl, final String topic) {
        final Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        final Map<String, Object> serde = AvroSerdeConfig.forClient(client, registryUrl);
        this.decoder = SpecificAvroSerde.forValues(PlacementDecision.class, serde).deserializer();
        this.topic = topic;
        final List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(15));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist: is this the gpupool cluster? "
                    + "(`gpupool topics` creates the topics)");
        }
        final List<TopicPartition> partitions = new ArrayList<>();
        infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        // Resolves the end offsets now, before the command goes out.
        partitions.forEach(tp -> consumer.position(tp, Duration.ofSeconds(15)));
    }

    /**
     * The job's first decision that {@code ends} the wait; the decisions before it go to {@code passed}. An EVICTED
     * decision that ends it counts only when no other decision of the job follows within a second: a requeued
     * job's QUEUED comes in the same transaction, right after it.
     */
    public Optional<PlacementDecision> await(final String jobId, final Predicate<PlacementDecision> ends,
            final Consumer<PlacementDecision> passed, final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        PlacementDecision evicted = null;
        long evictedAt = 0;
        while (System.nanoTime() < deadline) {
            for (final ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (!jobId.equals(r.key()) || r.value() == null) {
                    continue;
                }
                final PlacementDecision d = decoder.deserialize(topic, r.value());
                if (evicted != null) {
                    passed.accept(evicted);
                    evicted = null;
                }
                if (!ends.test(d)) {
                    passed.accept(d);
                } else if (d.getOutcome() == DecisionOutcome.EVICTED) {
                    evicted = d;
                    evictedAt = System.nanoTime();
                } else {
                    return Optional.of(d);
                }
            }
            if (evicted != null && System.nanoTime() - evictedAt > Duration.ofSeconds(1).toNanos()) {
                return Optional.of(evicted);
            }
        }
        return Optional.ofNullable(evicted);
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}
