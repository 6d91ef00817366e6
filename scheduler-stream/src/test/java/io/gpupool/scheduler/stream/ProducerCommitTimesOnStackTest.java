package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The commit cadence reads each stream thread's transaction commit times from the producer metrics of a real
 * exactly-once Streams client: were they renamed or not found, the cadence would silently fall back to a commit
 * every 10 ms, which collapsed under load (see {@link CommitCadence}).
 */
@ExtendWith(LocalStackExtension.class)
class ProducerCommitTimesOnStackTest {

    @Test
    void everyStreamThreadsCommitTimesAreFoundAndGrowAsItCommits(final TestStack stack) throws Exception {
        final String in = stack.uniqueName("commit-times-in");
        final String out = stack.uniqueName("commit-times-out");
        try (Admin admin = Admin.create(stack.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(in, 2, (short) 1), new NewTopic(out, 2, (short) 1))).all().get();
        }
        final ProducerCommitTimes times = new ProducerCommitTimes();
        final StreamsBuilder b = new StreamsBuilder();
        b.stream(in, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())).to(out, Produced.with(Serdes.ByteArray(),
                Serdes.ByteArray()));
        final Properties config = StreamsSettings.local(stack.uniqueName("commit-times-app"), stack.bootstrapServers(),
                Files.createTempDirectory("gpupool-commit-times-").toString());
        config.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2); // every thread's times, whatever this machine's default
        try (KafkaStreams streams = new KafkaStreams(b.build(), config);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(stack.producerConfig(), new ByteArraySerializer(),
                     new ByteArraySerializer())) {
            assertThat(times.nanos("any-thread", 0)).as("not bound yet").isNaN();
            times.readFrom(streams::metrics);
            streams.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> streams.state() == KafkaStreams.State.RUNNING);
            final List<String> threads = streams.metadataForLocalThreads().stream().map(ThreadMetadata::threadName).toList();
            assertThat(threads).hasSize(2);
            for (int i = 0; i < 200; i++) {
                producer.send(new ProducerRecord<>(in, ("k" + i).getBytes(), ("v" + i).getBytes()));
            }
            producer.flush();
            // each thread has committed transactions by now: its producer's flush and commit times are above zero
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                for (final String thread : threads) {
                    assertThat(times.nanos(thread, System.currentTimeMillis())).as(thread).isNotNaN().isPositive();
                }
            });
            assertThat(times.nanos("no-such-thread", System.currentTimeMillis())).isNaN();
            // read from outside the threads, all of them at once: at least what each thread's producer had spent
            final double each = times.nanos(threads.get(0), System.currentTimeMillis())
                    + times.nanos(threads.get(1), System.currentTimeMillis());
            assertThat(ProducerCommitTimes.allThreadsNanos(streams.metrics())).isGreaterThanOrEqualTo(each);
        }
    }
}
