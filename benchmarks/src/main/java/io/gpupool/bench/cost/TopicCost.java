package io.gpupool.bench.cost;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What was written to one topic between two {@link TopicMark marks}.
 *
 * @param offsets      offsets taken: data records plus transaction markers (every committed transaction leaves one
 *                     marker in each partition it wrote)
 * @param records      data records, counted by reading them back (read_uncommitted, so an aborted record counts too)
 * @param payloadBytes their key, value and header bytes as the producer serialised them, before compression
 * @param diskBytes    growth of the partitions' logs on the brokers: compressed batches, batch headers, markers
 */
record TopicCost(long offsets, long records, long payloadBytes, long diskBytes) {

    long markers() {
        return offsets - records;
    }

    /** Every topic of {@code after}, read from where {@code before} left it up to where {@code after} found it. */
    static Map<String, TopicCost> between(final TopicMark before, final TopicMark after, final String bootstrapServers,
                                          final Properties clientOverrides) {
        final Map<String, long[]> sums = new TreeMap<>();
        final Map<TopicPartition, Long> toRead = new HashMap<>();
        for (final Map.Entry<TopicPartition, Long> e : after.endOffsets().entrySet()) {
            final TopicPartition p = e.getKey();
            final long[] s = sums.computeIfAbsent(p.topic(), t -> new long[4]);
            s[0] += e.getValue() - before.endOffset(p);
            s[3] += after.diskBytes(p) - before.diskBytes(p);
            if (e.getValue() > before.endOffset(p)) {
                toRead.put(p, e.getValue());
            }
        }
        read(before, toRead, bootstrapServers, clientOverrides, sums);
        final Map<String, TopicCost> costs = new TreeMap<>();
        sums.forEach((t, s) -> costs.put(t, new TopicCost(s[0], s[1], s[2], s[3])));
        return costs;
    }

    private static void read(final TopicMark before, final Map<TopicPartition, Long> until,
                             final String bootstrapServers, final Properties clientOverrides,
                             final Map<String, long[]> sums) {
        final Properties p = new Properties();
        p.putAll(clientOverrides);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // a purged or compacted range would silently shrink the count: fail instead
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            final List<TopicPartition> open = new ArrayList<>(until.keySet());
            c.assign(open);
            open.forEach(tp -> c.seek(tp, before.endOffset(tp)));
            final long deadline = System.currentTimeMillis() + 120_000;
            while (!open.isEmpty()) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("could not read back " + open + " within 120 s");
                }
                for (final ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    final TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() < until.get(tp)) {
                        final long[] s = sums.get(r.topic());
                        s[1]++;
                        s[2] += size(r);
                    }
                }
                final List<TopicPartition> done = open.stream().filter(tp -> c.position(tp) >= until.get(tp)).toList();
                c.pause(done);
                open.removeAll(done);
            }
        }
    }

    private static long size(final ConsumerRecord<byte[], byte[]> r) {
        long n = Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
        for (final Header h : r.headers()) {
            n += h.key().getBytes(StandardCharsets.UTF_8).length + (h.value() == null ? 0 : h.value().length);
        }
        return n;
    }
}
