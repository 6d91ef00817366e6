package io.gpupool.cli.e2e;

import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.serde.SpecificAvroSerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** Everything committed to one topic, read from the start on a background thread, for tests to wait on. */
final class TopicLog<T extends SpecificRecord> implements AutoCloseable {

    private final KafkaConsumer<String, T> consumer;
    private final List<T> records = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closing;

    TopicLog(final TestStack stack, final String topic, final Class<T> type) {
        this.consumer = new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("e2e-log")), new StringDeserializer(),
                SpecificAvroSerde.forValues(type, Map.of(RegistryClientConfig.URL, stack.requireRegistryUrl())).deserializer());
        consumer.subscribe(List.of(topic));
        this.thread = new Thread(() -> {
            try {
                while (!closing) {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                        synchronized (records) {
                            records.add(r.value());
                            records.notifyAll();
                        }
                    });
                }
            } catch (WakeupException stop) {
                // close()
            } finally {
                consumer.close();
            }
        }, "e2e-log-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    List<T> all() {
        synchronized (records) {
            return List.copyOf(records);
        }
    }

    /** Waits until some record matches; fails with what was seen. */
    T await(final Predicate<T> match, final Duration timeout, final String what) {
        try {
            return Awaitility.await(what).atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                    .until(() -> all().stream().filter(match).findFirst(), Optional::isPresent).orElseThrow();
        } catch (final ConditionTimeoutException e) {
            throw new AssertionError("no " + what + " within " + timeout.toSeconds() + " s; seen:\n  "
                    + String.join("\n  ", all().stream().map(Object::toString)
                            .map(s -> s.length() > 400 ? s.substring(0, 400) + "..." : s).toList()), e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        closing = true;
        consumer.wakeup();
        thread.join(5_000);
    }
}
