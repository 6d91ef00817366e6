package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.TopologyScope;
import io.gpupool.avro.UplinkChange;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On the real broker, with telemetry in three partitions (three stage-1 tasks): one node of a leaf
 * busy (96 %) in one task, two quiet ones (30 %) in another. The leaf averages 52 %, under the 70 %
 * at which it is congested; a task that judged the leaf on its own nodes would have called it
 * congested from the busy node alone. A gang preferring one leaf therefore goes to that leaf
 * (fabric order) rather than to the other, equally free one; once the quiet nodes get busy too, the
 * next gang goes to the other leaf.
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
        final int partitions = clients.catalog.spec(Topic.TELEMETRY_LINK).partitions();
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
             KafkaProducer<String, JobEvent> events = clients.producer();
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
            // telemetry of a node stage 1 has no inventory for is dropped: send it once the inventory is journaled
            final Set<String> known = journaledNodes(journal, 6,
                    p -> p instanceof InventoryChange c ? c.getNodeId() : null);
            assertThat(known).hasSize(6);
            final long now = System.currentTimeMillis();
            link.send(new ProducerRecord<>(clients.topics.telemetryLink(), null, now, busy, sending(busy, 96, now)));
            for (final String n : quiet) {
                link.send(new ProducerRecord<>(clients.topics.telemetryLink(), null, now, n, sending(n, 30, now)));
            }
            link.flush();
            // the three figures are in the journal before the job is submitted
            final Set<String> figures = journaledNodes(journal, 3,
                    p -> p instanceof UplinkChange u ? u.getNodeId() : null);
            assertThat(figures).containsExactlyInAnyOrderElementsOf(leafA);

            final PlacementDecision gang = gangLands(jobs, clients.topics.jobs(), decisions, "gang");
            assertThat(leafOf(gang)).isEqualTo("leaf-a");

            // the gang ends; the quiet nodes get busy (80 %): leaf-a averages 85 %, congested
            events.send(new ProducerRecord<>(clients.topics.jobEvents(), "gang", Fixtures.event("gang",
                    JobEventType.STARTED, System.currentTimeMillis(), gang.getDecisionId())));
            events.send(new ProducerRecord<>(clients.topics.jobEvents(), "gang", Fixtures.event("gang",
                    JobEventType.COMPLETED, System.currentTimeMillis(), gang.getDecisionId())));
            events.flush();
            final List<ConsumerRecord<String, PlacementDecision>> released = StackClients.pollUntil(decisions,
                    new ArrayList<>(), s -> s.stream().anyMatch(r -> r.value().getOutcome() == DecisionOutcome.RELEASED),
                    Duration.ofSeconds(60));
            assertThat(released).anyMatch(r -> r.value().getOutcome() == DecisionOutcome.RELEASED);
            final long later = System.currentTimeMillis();
            for (final String n : quiet) {
                link.send(new ProducerRecord<>(clients.topics.telemetryLink(), null, later, n, sending(n, 80, later)));
            }
            link.flush();
            final Set<String> busier = journaledNodes(journal, 2, p -> p instanceof UplinkChange u
                    && Double.valueOf(80.0).equals(u.getUplinkUtilisationPct()) ? u.getNodeId() : null);
            assertThat(busier).containsExactlyInAnyOrderElementsOf(quiet);
            assertThat(leafOf(gangLands(jobs, clients.topics.jobs(), decisions, "gang-2"))).isEqualTo("leaf-b");
        }
    }

    /** The nodes of the journal entries read next that {@code nodeOf} names (null: none), until there are {@code count}. */
    private static Set<String> journaledNodes(final KafkaConsumer<String, JournalEntry> journal, final int count,
                                              final Function<Object, String> nodeOf) {
        final Set<String> nodes = new HashSet<>();
        await(count + " nodes in the journal").atMost(Duration.ofSeconds(60)).pollInSameThread().pollDelay(Duration.ZERO)
                .until(() -> {
                    for (final ConsumerRecord<String, JournalEntry> r : journal.poll(Duration.ofMillis(200))) {
                        final String node = nodeOf.apply(r.value().getPayload());
                        if (node != null) {
                            nodes.add(node);
                        }
                    }
                    return nodes.size() >= count;
                });
        return nodes;
    }

    /** Submits a 2x8 gang that prefers one leaf and waits for its decision: PLACED, on one leaf. */
    private static PlacementDecision gangLands(final KafkaProducer<String, JobCommand> jobs, final String topic,
                                     final KafkaConsumer<String, PlacementDecision> decisions, final String job) {
        jobs.send(new ProducerRecord<>(topic, job, Fixtures.submit(job,
                Fixtures.request("pool-l", 2, 8).setTopology(TopologyScope.SAME_LEAF).build())));
        jobs.flush();
        final List<ConsumerRecord<String, PlacementDecision>> seen = StackClients.pollUntil(decisions,
                new ArrayList<>(), s -> s.stream().anyMatch(r -> r.key().equals(job)), Duration.ofSeconds(60));
        final PlacementDecision d = seen.stream().filter(r -> r.key().equals(job)).findFirst().orElseThrow().value();
        assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.PLACED);
        final String first = d.getAssignments().get(0).getNodeId();
        assertThat(d.getAssignments()).allSatisfy(a -> assertThat(a.getNodeId().charAt(0)).isEqualTo(first.charAt(0)));
        return d;
    }

    private static String leafOf(final PlacementDecision d) {
        return d.getAssignments().get(0).getNodeId().startsWith("a") ? "leaf-a" : "leaf-b";
    }
}
