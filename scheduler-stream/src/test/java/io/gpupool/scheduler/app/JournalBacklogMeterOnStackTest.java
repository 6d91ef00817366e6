package io.gpupool.scheduler.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.stream.JournalBacklog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The placer's backlog, measured on the real broker: per journal partition, its end less the offset the
 * application committed there; a partition with no commit yet counts as nothing waiting.
 */
@ExtendWith(LocalStackExtension.class)
class JournalBacklogMeterOnStackTest {
    @Test
    void theBacklogIsTheJournalsEndLessWhatTheApplicationCommitted(final TestStack stack) throws Exception {
        final String journal = stack.uniqueName("backlog") + ".journal";
        final String application = stack.uniqueName("backlog-app");
        final JournalBacklog backlog = new JournalBacklog(5, System::currentTimeMillis);
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (Admin admin = Admin.create(stack.adminConfig());
             KafkaProducer<String, String> producer = new KafkaProducer<>(stack.producerConfig(), new StringSerializer(),
                     new StringSerializer())) {
            admin.createTopics(List.of(new NewTopic(journal, Optional.of(2), Optional.empty()))).all().get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(journal, 0, "pool", "entry " + i)).get();
            }
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(journal, 1, "pool", "entry " + i)).get();
            }
            admin.alterConsumerGroupOffsets(application, Map.of(new TopicPartition(journal, 0), new OffsetAndMetadata(4)))
                    .all().get(30, TimeUnit.SECONDS);

            try (JournalBacklogMeter meter = new JournalBacklogMeter(Admin.create(stack.adminConfig()), application, journal,
                    backlog, meters)) {
                meter.measure();
            }
        }
        assertThat(backlog.partitions()).isEqualTo(2);
        assertThat(backlog.entries(0)).as("10 written, 4 applied").isEqualTo(6);
        assertThat(backlog.entries(1)).as("never committed: a replay, not a backlog").isZero();
        assertThat(meters.get("gpupool.journal.backlog.entries").tag("partition", "0").gauge().value()).isEqualTo(6.0);
    }
}
