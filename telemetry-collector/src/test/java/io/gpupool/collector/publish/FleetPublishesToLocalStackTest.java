package io.gpupool.collector.publish;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.collector.sim.BusyGpus;
import io.gpupool.collector.sim.FleetFaults;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.collector.sim.SimulatedFleet;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroDeserializer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The simulated fleet publishes through the real publisher to the local stack (a real KRaft
 * broker and the Schema-Registry-compatible server); the records are read back with a consumer
 * whose deserializer fetches the writer schemas from that registry over HTTP.
 */
@ExtendWith(LocalStackExtension.class)
class FleetPublishesToLocalStackTest {

    @Test
    void inventoryAndSamplesArriveAndDecode(final TestStack stack) throws Exception {
        final PublisherTopics topics = new PublisherTopics(stack.uniqueName("inventory"), stack.uniqueName("gpu"),
                stack.uniqueName("link"));
        try (Admin admin = Admin.create(stack.adminConfig())) {
            admin.createTopics(List.of(
                    new NewTopic(topics.inventory(), 2, (short) 1).configs(Map.of("cleanup.policy", "compact")),
                    new NewTopic(topics.gpu(), 2, (short) 1),
                    new NewTopic(topics.link(), 2, (short) 1))).all().get();
        }
        final SimulatedFleet fleet = new SimulatedFleet(FleetSpec.small(11), new BusyGpus(), new FleetFaults());
        fleet.busyGpus().set(fleet.gpuUuids("node-00003"));
        fleet.faults().xid("node-00007", 2, 48);
        try (TelemetryPublisher publisher = TelemetryPublisher.connect(stack.bootstrapServers(), stack.requireRegistryUrl(), topics, 1000)) {
            final Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
            fleet.tick(t0, 1000, publisher);
            fleet.tick(t0.plusSeconds(1), 1000, publisher);
            assertThat(publisher.flush(Duration.ofSeconds(60))).isTrue();
            assertThat(publisher.stats()).isEqualTo(new PublisherStats(16 + 2 * 16 + 2 * 16, 0, 0));
        }

        final List<NodeInventory> inventories = read(stack, topics.inventory(), NodeInventory.class, 16);
        assertThat(inventories.stream().map(NodeInventory::getNodeId).collect(Collectors.toSet())).hasSize(16);
        assertThat(inventories.get(0).getGpus()).hasSize(8);
        final List<GpuSamples> gpus = read(stack, topics.gpu(), GpuSamples.class, 32);
        final GpuSamples busyNode = gpus.stream().filter(g -> g.getNodeId().equals("node-00003")).findFirst().orElseThrow();
        assertThat(busyNode.getGpus()).allMatch(g -> g.getUtilizationGpuPct() >= 85.0);
        assertThat(gpus.stream().filter(g -> g.getNodeId().equals("node-00007")).findFirst().orElseThrow()
                .getGpus().get(2).getXidCodes()).containsExactly(48);
        final List<LinkSamples> links = read(stack, topics.link(), LinkSamples.class, 32);
        assertThat(links.stream().flatMap(l -> l.getPorts().stream()).map(p -> p.getLinkLayer()).collect(Collectors.toSet()))
                .hasSize(2);
    }

    private static <T extends SpecificRecord> List<T> read(final TestStack stack, final String topic, final Class<T> type,
            final int expected) {
        final SpecificAvroDeserializer<T> values = new SpecificAvroDeserializer<>();
        values.configure(Map.of(RegistryClientConfig.URL, stack.requireRegistryUrl(),
                AvroSerdeConfig.VALUE_TYPE, type), false);
        final List<T> out = new ArrayList<>();
        try (KafkaConsumer<String, T> consumer = new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("reader")),
                new StringDeserializer(), values)) {
            consumer.subscribe(Set.of(topic));
            await(expected + " records of " + topic).atMost(Duration.ofSeconds(60)).pollInSameThread()
                    .pollDelay(Duration.ZERO).until(() -> {
                        for (final ConsumerRecord<String, T> r : consumer.poll(Duration.ofMillis(500))) {
                            assertThat(r.key()).isNotBlank();
                            out.add(r.value());
                        }
                        return out.size() >= expected;
                    });
        }
        assertThat(out).hasSize(expected);
        return out;
    }
}
