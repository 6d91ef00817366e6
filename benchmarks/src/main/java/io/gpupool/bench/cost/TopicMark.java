package io.gpupool.bench.cost;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeLogDirsResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a run's topics stood at one moment: each partition's end offset (records plus transaction markers) and
 * the bytes its replicas hold on the brokers' disks (compressed batches with their headers, as written).
 *
 * @param endOffsets per partition
 * @param diskBytes  per partition, summed over its replicas
 */
record TopicMark(Map<TopicPartition, Long> endOffsets, Map<TopicPartition, Long> diskBytes) {

    /** Every topic whose name starts with {@code prefix}: the bench's own, their changelogs and repartition topic. */
    static TopicMark of(final Admin admin, final String prefix) throws Exception {
        final Set<String> topics = new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
        topics.removeIf(t -> !t.startsWith(prefix));
        final Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
                .get(30, TimeUnit.SECONDS);
        final Map<TopicPartition, OffsetSpec> latest = new TreeMap<>(TopicMark::compare);
        described.values().forEach(d -> d.partitions().forEach(p ->
                latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
        final Map<TopicPartition, Long> ends = new TreeMap<>(TopicMark::compare);
        for (final Map.Entry<TopicPartition, ListOffsetsResultInfo> e
                : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet()) {
            ends.put(e.getKey(), e.getValue().offset());
        }
        final Map<TopicPartition, Long> bytes = new TreeMap<>(TopicMark::compare);
        final DescribeLogDirsResult dirs = admin.describeLogDirs(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)
                .stream().map(Node::id).toList());
        for (final Map<String, LogDirDescription> broker : dirs.allDescriptions().get(30, TimeUnit.SECONDS).values()) {
            for (final LogDirDescription dir : broker.values()) {
                for (final Map.Entry<TopicPartition, ReplicaInfo> r : dir.replicaInfos().entrySet()) {
                    if (ends.containsKey(r.getKey())) {
                        bytes.merge(r.getKey(), r.getValue().size(), Long::sum);
                    }
                }
            }
        }
        return new TopicMark(ends, bytes);
    }

    long endOffset(final TopicPartition p) {
        return endOffsets.getOrDefault(p, 0L);
    }

    long diskBytes(final TopicPartition p) {
        return diskBytes.getOrDefault(p, 0L);
    }

    static int compare(final TopicPartition a, final TopicPartition b) {
        final int byTopic = a.topic().compareTo(b.topic());
        return byTopic != 0 ? byTopic : Integer.compare(a.partition(), b.partition());
    }
}
