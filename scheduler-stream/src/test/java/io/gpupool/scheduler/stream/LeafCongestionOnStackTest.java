package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.TopologyScope;
import io.gpupool.avro.UplinkChange;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * On the real broker, with telemetry in three partitions (three stage-1 tasks): one node of a leaf
 * busy (96 %) in one task, two quiet ones (30 %) in another. The leaf averages 52 %, under the 70 %
 * at which it is congested; a task that judged the leaf on its own nodes would have called it
 * congested from the busy node alone. A gang preferring one leaf therefore goes to that leaf
 * (fabric order) rather than to the other, equally free one.
 */
@ExtendWith(LocalStackExtension.class)
class LeafCongestionOnStackTest {

    /** The partition the default partitioner gives a key. */
    private static int partition(final String key, final int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    private static LinkSamples sending(final String node, final double pctOf400G, final long at) {
        final LinkSamples s = Fixtures.link(node, true, 0, at);
        s.getPorts().get(0).setTxBytesPerSec(pctOf400G / 100 * 400e9 / 8);
        return s;
    }

    @Test
    void aLeafIsJudgedOnAllItsNodesAcrossStageOneTasks(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("leaf");
        final StackClients clients = new StackClients(stack, prefix);
        final int partitions = clients.catalog.spec(io.gpupool.topics.Topic.TELEMETRY_LINK).partitions();
        assertThat(partitions).as("the default catalog spreads telemetry over several tasks").isGreaterThan(1);
        // leaf-a: the busy node in one partition, the two quiet ones together in another
        final String busy = "a-busy";
        final List<String> quiet = new ArrayList<>();
        for (int i = 0; quiet.size() < 2; i++) {
            final String id = "a-quiet-" + i;
            if (partition(id, partitions) != partition(busy, partitions)) {
                quiet.add(id);
            }
        }
        final List<String> leafA = List.of(busy, quiet.get(0), quiet.get(1));
        final List<String> leafB = List.of("b-0", "b-1", "b-2");
        final SchedulerOptions o = new SchedulerOptions(prefix + "-app", stack.bootstrapServers(),
                stack.requireRegistryUrl(), new Properties(), false, Files.createTempDirectory("gpupool-it-"),
                "127.0.0.1", 0, Map.of(), 1_000, 600_000, clients.catalog);
        try (SchedulerApp app = SchedulerApp.start(o);
             KafkaProducer<String, NodeInventory> inv = clients.producer();
             KafkaProducer<String, LinkSamples> link = clients.producer();
             KafkaProducer<String, JobCommand> jobs = clients.producer();
             KafkaConsumer<String, JournalEntry> journal = new KafkaConsumer<>(
                     stack.consumerConfig(stack.uniqueName("leaf-journal")), new StringDeserializer(),
                     clients.codecs.deserializer(JournalEntry.class));
             KafkaConsumer<String, PlacementDecision> decisions = clients.decisionConsumer()) {
            assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
            journal.subscribe(List.of(clients.topics.journal()));
            for (final String n : leafA) {
                inv.send(new ProducerRecord<>(clients.topics.inventory(), n, Fixtures.node("pool-l", n, "leaf-a", 8)));
            }
            for (final String n : leafB) {
                inv.send(new ProducerRecord<>(clients.topics.inventory(), n, Fixtures.node("pool-l", n, "leaf-b", 8)));
            }
            inv.flush();
            final long now = System.currentTimeMillis();
            link.send(new ProducerRecord<>(clients.topics.telemetryLink(), null, now, busy, sending(busy, 96, now)));
            for (final String n : quiet) {
                link.send(new ProducerRecord<>(clients.topics.telemetryLink(), null, now, n, sending(n, 30, now)));
            }
            link.flush();
            // the three figures are in the journal before the job is submitted
            final Set<String> figures = new HashSet<>();
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (figures.size() < 3 && System.nanoTime() < deadline) {
                for (final ConsumerRecord<String, JournalEntry> r : journal.poll(Duration.ofMillis(200))) {
                    if (r.value().getPayload() instanceof UplinkChange u) {
                        figures.add(u.getNodeId());
                    }
                }
            }
            assertThat(figures).containsExactlyInAnyOrderElementsOf(leafA);

            jobs.send(new ProducerRecord<>(clients.topics.jobs(), "gang", Fixtures.submit("gang",
                    Fixtures.request("pool-l", 2, 8).setTopology(TopologyScope.SAME_LEAF).build())));
            jobs.flush();
            final List<ConsumerRecord<String, PlacementDecision>> seen = StackClients.pollUntil(decisions,
                    new ArrayList<>(), s -> !s.isEmpty(), Duration.ofSeconds(60));
            assertThat(seen).singleElement().satisfies(r -> {
                assertThat(r.value().getOutcome()).isEqualTo(DecisionOutcome.PLACED);
                assertThat(r.value().getAssignments()).allSatisfy(a -> assertThat(leafA).contains(a.getNodeId()));
            });
        }
    }
}
