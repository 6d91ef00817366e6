package io.gpupool.localstack.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Transactions need the transaction-state topic, which a one-broker cluster only has with RF 1. */
@ExtendWith(LocalStackExtension.class)
public class ExactlyOnceTest {

    @Test
    void committedTransactionsAreSeenAndAbortedOnesAreNot(final TestStack stack) throws Exception {
        check(stack);
    }

    /** Also run against the Testcontainers broker. */
    public static void check(final TestStack stack) throws Exception {
        final String topic = stack.uniqueName("eos");
        try (Admin admin = Admin.create(stack.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        final Properties config = stack.producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, stack.uniqueName("tx"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "job-1", "committed-1"));
            producer.send(new ProducerRecord<>(topic, "job-2", "committed-2"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "job-3", "aborted"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "job-4", "committed-3"));
            producer.commitTransaction();
        }

        final List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("g")),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            await("the committed records").atMost(Duration.ofSeconds(30)).pollInSameThread().pollDelay(Duration.ZERO)
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(500)).forEach(r -> seen.add(r.value()));
                        return seen.size() >= 3;
                    });
            // One more poll: an aborted record must not show up late either.
            consumer.poll(Duration.ofMillis(500)).forEach(r -> seen.add(r.value()));
        }
        assertThat(seen).containsExactlyInAnyOrder("committed-1", "committed-2", "committed-3");
    }
}
