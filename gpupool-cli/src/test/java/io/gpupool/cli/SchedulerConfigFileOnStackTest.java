package io.gpupool.cli;

import static io.gpupool.cli.HistoryCommandsOnStackTest.submit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.audit.SyntheticHistory;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpupool scheduler --config FILE} takes its topic names from the file, as up, sink, submit and
 * topics do: a scheduler given a file that renames every topic reads jobs from the renamed jobs topic and
 * writes its decision to the renamed decisions topic. Before, it had no --config and always used the
 * default names, so it never saw a job written where the rest of the deployment wrote it.
 */
@ExtendWith(LocalStackExtension.class)
class SchedulerConfigFileOnStackTest {

    @TempDir
    Path dir;

    @Test
    void theSchedulerReadsAndWritesTheTopicsItsConfigFileNames(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("schedcfg");
        final StringBuilder text = new StringBuilder();
        for (final Topic topic : Topic.values()) {
            text.append(TopicCatalog.PREFIX).append(topic.id()).append(".name=").append(prefix).append('.')
                    .append(topic.defaultName()).append('\n');
        }
        final Path config = dir.resolve("gpupool.properties");
        Files.writeString(config, text);
        final String jobs = prefix + "." + Topic.JOBS.defaultName();
        final String inventory = prefix + "." + Topic.INVENTORY.defaultName();
        final String decisions = prefix + "." + Topic.DECISIONS.defaultName();

        final CliRun topics = CliRun.of("topics", "--bootstrap-server", stack.bootstrapServers(), "--config", config.toString());
        assertThat(topics.exitCode()).as(topics.out() + topics.err()).isZero();

        final AtomicReference<CliRun> schedulerRun = new AtomicReference<>();
        final Thread scheduler = new Thread(() -> schedulerRun.set(CliRun.of("scheduler", "--config", config.toString(),
                "--bootstrap-server", stack.bootstrapServers(), "--registry-url", stack.requireRegistryUrl(),
                "--application-id", prefix + "-app", "--state-dir", dir.resolve("state").toString(),
                "--duration", "300s")), "scheduler-under-test");
        scheduler.start();
        final Codecs codecs = HistoryCommandsOnStackTest.codecs(stack);
        final List<ConsumerRecord<String, PlacementDecision>> seen = new ArrayList<>();
        try (KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(stack.producerConfig(),
                     new StringSerializer(), codecs.<SpecificRecord>serializer());
             KafkaConsumer<String, PlacementDecision> consumer = new KafkaConsumer<>(
                     stack.consumerConfig(stack.uniqueName("schedcfg-d")), new StringDeserializer(),
                     codecs.deserializer(PlacementDecision.class))) {
            consumer.subscribe(List.of(decisions));
            producer.send(new ProducerRecord<>(inventory, "n0", SyntheticHistory.node("pool-h", "n0", "leaf-0", 8)));
            producer.send(new ProducerRecord<>(jobs, "j0", submit("j0", 1, 4)));
            producer.flush();
            // the scheduler's start is in this wait: generous, the test machine is shared
            await("a PLACED decision on " + decisions).atMost(Duration.ofSeconds(150)).pollInSameThread().pollDelay(Duration.ZERO)
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                        return seen.stream().anyMatch(r -> r.value().getOutcome() == DecisionOutcome.PLACED);
                    });
        } finally {
            // Stops the command's wait: it closes the scheduler on its way out.
            scheduler.interrupt();
            scheduler.join(60_000);
        }
        // The job and the node are on two topics, so the scheduler may see the job first and queue it
        // until the node comes; then a QUEUED decision comes before the PLACED one.
        assertThat(seen).extracting(ConsumerRecord::key).containsOnly("j0");
        final List<DecisionOutcome> outcomes = seen.stream().map(r -> r.value().getOutcome()).toList();
        assertThat(outcomes).isIn(List.of(DecisionOutcome.PLACED), List.of(DecisionOutcome.QUEUED, DecisionOutcome.PLACED));
        assertThat(schedulerRun.get()).isNotNull();
        assertThat(schedulerRun.get().out()).contains("gpupool scheduler: " + prefix + "-app");
    }
}
