package io.gpupool.scheduler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.Tick;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.serde.AllocationBomb;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.WireFormat;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A journal record nobody can decode (an allocation bomb written by someone with access to the
 * topic) is what the placer dead-letters and never applies; the audit's journal reader skips it the
 * same way and counts it, instead of failing the audit or running out of heap.
 */
@ExtendWith(LocalStackExtension.class)
class UndecodableJournalTest {

    @Test
    void anUndecodableJournalRecordIsSkippedAndCounted(final TestStack stack) throws Exception {
        final String journal = stack.uniqueName("journal");
        try (Admin admin = Admin.create(stack.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(journal, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        final TopicNames topics = TopicNames.of(TopicCatalog.defaults().withOverrides(
                Map.of(TopicCatalog.PREFIX + Topic.JOURNAL.id() + ".name", journal)));
        final Codecs codecs = new Codecs(AvroSerdeConfig.registry(Map.of(RegistryClientConfig.URL,
                stack.requireRegistryUrl())), true);
        final int id = codecs.registry().register(WireFormat.subject(journal, false), JournalEntry.getClassSchema());
        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(stack.producerConfig(), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            final byte[] pool = "p1".getBytes(StandardCharsets.UTF_8);
            raw.send(new ProducerRecord<>(journal, pool, codecs.<JournalEntry>serializer().serialize(journal, tick(1))));
            raw.send(new ProducerRecord<>(journal, pool, AllocationBomb.record(id, JournalEntry.getClassSchema(), "gpus")));
            raw.send(new ProducerRecord<>(journal, pool, codecs.<JournalEntry>serializer().serialize(journal, tick(2))));
            raw.flush();
        }
        try (KafkaHistory history = new KafkaHistory(stack.consumerConfig(stack.uniqueName("audit")),
                stack.requireRegistryUrl(), topics)) {
            final List<Long> read = new ArrayList<>();
            for (final Iterator<JournalRecord> it = history.journal(null, Map.of()); it.hasNext(); ) {
                read.add(it.next().offset());
            }
            assertThat(read).containsExactly(0L, 2L);
            assertThat(history.undecodableJournalRecords()).isEqualTo(1);
        }
    }

    private static JournalEntry tick(final long ms) {
        return JournalEntry.newBuilder().setPool("p1").setTimestamp(Instant.ofEpochMilli(ms))
                .setPayload(Tick.newBuilder().build()).build();
    }
}
