package io.gpupool.cli.submit;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.NodeInventory;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The nodes of one pool as their collectors last described them: the compacted gpupool.inventory topic read
 * to its end (the latest record per node; a tombstone removes one). What {@code submit} checks a request
 * against before it sends it; no consumer group, nothing committed.
 */
record PoolInventory(String pool, List<NodeInventory> nodes, SortedSet<String> otherPools) {

    SortedSet<String> models() {
        final SortedSet<String> models = new TreeSet<>();
        nodes.forEach(n -> n.getGpus().stream().map(GpuInfo::getModel).filter(m -> m != null && !m.isBlank()).forEach(models::add));
        return models;
    }

    /**
     * @throws IllegalStateException when the topic cannot be read to its end within {@code timeout}
     */
    static PoolInventory read(final Properties client, final String registryUrl, final String topic, final String pool,
            final Duration timeout) {
        final Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        final Map<String, Object> serde = AvroSerdeConfig.forClient(client, registryUrl);
        final Deserializer<NodeInventory> decoder = SpecificAvroSerde.forValues(NodeInventory.class, serde).deserializer();
        final Map<String, NodeInventory> latest = new TreeMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            final List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " does not exist");
            }
            final List<TopicPartition> partitions = new ArrayList<>();
            infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " took longer than " + timeout.toSeconds() + " s");
                }
                for (final ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null) {
                        latest.remove(r.key());
                    } else {
                        latest.put(r.key(), decoder.deserialize(topic, r.value()));
                    }
                }
            }
        }
        final List<NodeInventory> nodes = new ArrayList<>();
        final SortedSet<String> others = new TreeSet<>();
        for (final NodeInventory n : latest.values()) {
            if (n.getPool().equals(pool)) {
                nodes.add(n);
            } else {
                others.add(n.getPool());
            }
        }
        return new PoolInventory(pool, nodes, others);
    }
}
