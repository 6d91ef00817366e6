package io.gpupool.localstack.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Every committed record of a topic as it stands now, for tests that check a finished run. It reads each
 * partition from its start to the last stable offset taken when called, without a consumer group: no group join
 * to wait for, and no quiet period to sit out to guess the end.
 */
public final class CommittedRecords {
    private static final Duration LIMIT = Duration.ofMinutes(2);

    private CommittedRecords() {
    }

    /** The records in partition order, then offset order; fails when the end is not reached within two minutes. */
    public static <K, V> List<ConsumerRecord<K, V>> readAll(final TestStack stack, final String topic,
                                                            final Deserializer<K> keys, final Deserializer<V> values) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        final List<ConsumerRecord<K, V>> out = new ArrayList<>();
        try (KafkaConsumer<K, V> c = new KafkaConsumer<>(p, keys, values)) {
            final List<TopicPartition> partitions = c.partitionsFor(topic, LIMIT).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).collect(Collectors.toList());
            c.assign(partitions);
            c.seekToBeginning(partitions);
            // read_committed: the end offsets are the last stable offsets, where a read_committed reading stops
            final Map<TopicPartition, Long> ends = c.endOffsets(partitions, LIMIT);
            final long deadline = System.nanoTime() + LIMIT.toNanos();
            while (partitions.stream().anyMatch(tp -> c.position(tp, LIMIT) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("did not read " + topic + " to " + ends + " within " + LIMIT);
                }
                // records committed after the ends were taken are not part of the topic "as it stands now"
                for (final ConsumerRecord<K, V> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
                        out.add(r);
                    }
                }
            }
        }
        out.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition())
                : Long.compare(a.offset(), b.offset()));
        return out;
    }
}
