package io.gpupool.scheduler.app;

import io.gpupool.scheduler.stream.JournalReader;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Re-reads the journal for a restoring placer with a consumer of its own: read_committed, so it sees what
 * the placer saw, and in the application's group only to fetch the committed offset (it never joins). That
 * offset is the one Kafka Streams resumes from, committed in the same transactions as the placer's stores,
 * so the entries below it are exactly those the restored state must have applied.
 */
final class KafkaJournalReader implements JournalReader {
    /** A read that makes no progress for this long fails the restore (the task is retried) rather than hang. */
    static final Duration STALL_LIMIT = Duration.ofSeconds(120);

    private final Map<String, Object> config;
    private final String topic;
    private final String group;

    /** @param streams the application's Streams settings: the same brokers, security and client overrides */
    KafkaJournalReader(final StreamsConfig streams, final String applicationId, final String topic) {
        this.config = new HashMap<>(streams.getRestoreConsumerConfigs(applicationId + "-journal-reread"));
        this.config.put(ConsumerConfig.GROUP_ID_CONFIG, applicationId);
        this.config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        this.config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        this.topic = topic;
        this.group = applicationId;
    }

    @Override
    public long readProcessed(final int partition, final long from, final Seen each) {
        final TopicPartition tp = new TopicPartition(topic, partition);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            final OffsetAndMetadata committed = consumer.committed(Set.of(tp), STALL_LIMIT).get(tp);
            if (committed == null) {
                throw new IllegalStateException("the placer has state for " + tp + " but application " + group
                        + " has no committed offset there, so the state cannot be matched to the journal. Either another"
                        + " pipeline with other topic names runs under the same application id (its stores are shared:"
                        + " give each pipeline its own --application-id), or the group's offsets expired"
                        + " (offsets.retention.minutes; start under a new application id to rebuild from the journal)");
            }
            final long to = committed.offset();
            if (from >= to) {
                return to;
            }
            final long start = consumer.beginningOffsets(List.of(tp), STALL_LIMIT).get(tp);
            if (start > from) {
                throw new IllegalStateException("restoring the placer needs " + tp + " from offset " + from
                        + " but the journal starts at " + start + ": its retention must keep every entry (retention.ms=-1)");
            }
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            long lastProgress = System.currentTimeMillis();
            long position = from;
            while (position < to) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200)).records(tp)) {
                    if (r.offset() < to) {
                        each.record(r.offset(), r.value());
                    }
                }
                final long now = consumer.position(tp, STALL_LIMIT);
                if (now > position) {
                    position = now;
                    lastProgress = System.currentTimeMillis();
                } else if (System.currentTimeMillis() - lastProgress > STALL_LIMIT.toMillis()) {
                    throw new IllegalStateException("re-reading " + tp + " for the placer's restore stalled at offset "
                            + position + " of " + to);
                }
            }
            return to;
        }
    }
}
