package io.gpupool.collector.publish;

import io.gpupool.collector.sim.BusyGpus;
import io.gpupool.collector.sim.FleetFaults;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.collector.sim.SimulatedFleet;
import io.gpupool.registry.InMemorySchemaRegistry;
import io.gpupool.serde.SpecificAvroSerializer;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A real producer pointed at a port where no broker listens: the buffer holds, then drops the oldest, counted. */
class TelemetryPublisherUnreachableTest {

    @Test
    void boundedBufferCountsDropsAndKeepsInventory() throws Exception {
        final int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        final Properties p = TelemetryPublisher.producerConfig("127.0.0.1:" + deadPort);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 200);
        final SpecificAvroSerializer<SpecificRecord> values =
                new SpecificAvroSerializer<>(InMemorySchemaRegistry.named("unreachable-test"), true, false);
        try (TelemetryPublisher publisher = new TelemetryPublisher(
                new KafkaProducer<>(p, new StringSerializer(), values), PublisherTopics.defaults(), 10)) {
            final SimulatedFleet fleet = new SimulatedFleet(FleetSpec.small(1), new BusyGpus(), new FleetFaults());
            fleet.tick(Instant.now(), 1000, publisher); // 16 inventories + 32 samples
            await("the overflow dropped").atMost(Duration.ofSeconds(5)).until(() -> publisher.stats().dropped() >= 21);
            final PublisherStats stats = publisher.stats();
            assertThat(stats.sent()).isZero();
            // 32 samples into 10 places (one may be in the sender's hands): at least 21 dropped, and counted
            assertThat(stats.dropped()).isBetween(21L, 22L);
            assertThat(stats.buffered()).as("10 telemetry + inventories, which are never dropped").isGreaterThanOrEqualTo(10 + 15);
            assertThat(publisher.flush(Duration.ofMillis(100))).isFalse();
        }
    }

    @Test
    void rejectsAnEmptyBuffer() {
        Assertions.assertThatThrownBy(() -> new TelemetryPublisher(null, PublisherTopics.defaults(), 0))
                .hasMessageContaining("at least 1");
    }
}
