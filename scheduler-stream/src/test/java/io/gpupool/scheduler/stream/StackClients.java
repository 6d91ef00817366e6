package io.gpupool.scheduler.stream;

import static org.awaitility.Awaitility.await;
import io.gpupool.scheduler.app.SchedulerMain;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;

import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.avro.specific.SpecificRecord;
import org.awaitility.core.ConditionTimeoutException;

/** Producers, consumers and a per-test topic catalog on the shared local stack. */
final class StackClients {
    final TestStack stack;
    final Codecs codecs;
    final TopicCatalog catalog;
    final TopicNames topics;

    StackClients(final TestStack stack, final String prefix) {
        this.stack = stack;
        final Map<String, Object> serde = new HashMap<>();
        serde.put(RegistryClientConfig.URL, stack.requireRegistryUrl());
        this.codecs = new Codecs(AvroSerdeConfig.registry(serde), true);
        final Map<String, String> names = new HashMap<>();
        for (final Topic t : Topic.values()) {
            names.put(TopicCatalog.PREFIX + t.id() + ".name", prefix + "." + t.id());
        }
        this.catalog = TopicCatalog.defaults().withOverrides(names);
        this.topics = TopicNames.of(catalog);
    }

    /** The catalog overrides as --name value arguments for {@link SchedulerMain}. */
    List<String> topicArgs() {
        final List<String> a = new ArrayList<>();
        for (final Topic t : Topic.values()) {
            a.add("--" + TopicCatalog.PREFIX + t.id() + ".name");
            a.add(catalog.name(t));
        }
        return a;
    }

    <T extends SpecificRecord> KafkaProducer<String, T> producer() {
        return new KafkaProducer<>(stack.producerConfig(), new StringSerializer(), codecs.<T>serializer());
    }

    KafkaProducer<byte[], byte[]> rawProducer() {
        return new KafkaProducer<>(stack.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
    }

    KafkaConsumer<String, PlacementDecision> decisionConsumer() {
        final KafkaConsumer<String, PlacementDecision> c = new KafkaConsumer<>(
                stack.consumerConfig(stack.uniqueName("it-decisions")), new StringDeserializer(),
                codecs.deserializer(PlacementDecision.class));
        c.subscribe(List.of(topics.decisions()));
        return c;
    }

    KafkaConsumer<byte[], byte[]> rawConsumer(final String topic) {
        final KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("it-raw")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        c.subscribe(List.of(topic));
        return c;
    }

    /** Polls until {@code done} holds for everything read so far, or the timeout. */
    static <K, V> List<ConsumerRecord<K, V>> pollUntil(final KafkaConsumer<K, V> c, final List<ConsumerRecord<K, V>> seen,
                                                       final Predicate<List<ConsumerRecord<K, V>>> done,
                                                       final Duration timeout) {
        try {
            await("records").atMost(timeout).pollInSameThread().pollDelay(Duration.ZERO).until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(seen::add);
                return done.test(seen);
            });
        } catch (final ConditionTimeoutException notAll) {
            // the caller asserts on what was read, with its own message
        }
        return seen;
    }
}
