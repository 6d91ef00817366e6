package io.gpupool.localstack.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LocalStackExtension.class)
class CommittedRecordsTest {

    @Test
    void readsEveryCommittedRecordInPartitionOrderAndStopsBeforeAnOpenTransaction(final TestStack stack) throws Exception {
        final String topic = stack.uniqueName("committed");
        try (Admin admin = Admin.create(stack.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        final Properties config = stack.producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, stack.uniqueName("tx"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 6; i++) {
                producer.send(new ProducerRecord<>(topic, 2 - i % 3, "k", "committed-" + i));
            }
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, "k", "aborted"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 1, "k", "committed-6"));
            producer.commitTransaction();
            // left open while reading: its partition's end is where it began
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 1, "k", "open"));
            producer.flush();

            final List<ConsumerRecord<String, String>> read = CommittedRecords.readAll(stack, topic, new StringDeserializer(),
                    new StringDeserializer());

            assertThat(read).extracting(r -> r.partition() + ":" + r.value()).containsExactly(
                    "0:committed-2", "0:committed-5", "1:committed-1", "1:committed-4", "1:committed-6",
                    "2:committed-0", "2:committed-3");
            producer.abortTransaction();
        }
    }
}
