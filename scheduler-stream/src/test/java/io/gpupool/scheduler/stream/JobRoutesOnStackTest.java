package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.app.SchedulerApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The placer's route notices on the real broker, exactly-once: they cross from stage 2 to stage 1 on the
 * application's own repartition topic, so a duplicate submit ends only its own route entry, and a finished
 * job's route goes when its record expires (a cancel after that is dead-lettered, saying why).
 */
@ExtendWith(LocalStackExtension.class)
class JobRoutesOnStackTest {
    private static final long RETENTION_MS = 2_000;
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void routeNoticesReachStageOneAndTheRouteGoesWithTheRecord(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("routes");
        final StackClients clients = new StackClients(stack, prefix);
        final SchedulerOptions o = new SchedulerOptions(prefix + "-app", stack.bootstrapServers(),
                stack.requireRegistryUrl(), new Properties(), false, Files.createTempDirectory("gpupool-it-"),
                "127.0.0.1", 0, Map.of("finished-job-retention-ms", Long.toString(RETENTION_MS)), 1_000, 5_000,
                clients.catalog);
        try (SchedulerApp app = SchedulerApp.start(o);
             KafkaProducer<String, NodeInventory> inv = clients.producer();
             KafkaProducer<String, JobCommand> jobs = clients.producer();
             KafkaProducer<String, JobEvent> events = clients.producer();
             KafkaConsumer<String, PlacementDecision> decisions = clients.decisionConsumer();
             KafkaConsumer<byte[], byte[]> dlq = clients.rawConsumer(clients.topics.dlq())) {
            assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
            final String metricsUrl = "http://127.0.0.1:" + app.httpPort() + "/metrics";
            inv.send(new ProducerRecord<>(clients.topics.inventory(), "n0", Fixtures.node("pool-r", "n0", "leaf-a", 8))).get();
            // the node first: a j1 that came before it would be QUEUED, and its duplicate rejected before it is placed
            await("the node in the engine").atMost(Duration.ofSeconds(60)).until(() -> app.engines().nodesKnown("pool-r") == 1);
            jobs.send(new ProducerRecord<>(clients.topics.jobs(), "j1",
                    Fixtures.submit("j1", Fixtures.request("pool-r", 1, 1).build()))).get();
            jobs.send(new ProducerRecord<>(clients.topics.jobs(), "j1",
                    Fixtures.submit("j1", "again", Fixtures.request("pool-r", 1, 2).build()))).get();
            final List<ConsumerRecord<String, PlacementDecision>> seen = StackClients.pollUntil(decisions,
                    new ArrayList<>(), s -> s.size() >= 2, Duration.ofSeconds(60));
            assertThat(seen).extracting(r -> r.value().getOutcome())
                    .containsExactly(DecisionOutcome.PLACED, DecisionOutcome.REJECTED);
            await("the duplicate's route notice").atMost(Duration.ofSeconds(30))
                    .until(() -> routeEnds(metricsUrl, "rejected") == 1.0);

            // j1 ends; its route stays through the retention, then a later submit expires its record
            final String placement = seen.get(0).value().getDecisionId();
            events.send(new ProducerRecord<>(clients.topics.jobEvents(), "j1",
                    Fixtures.event("j1", JobEventType.COMPLETED, System.currentTimeMillis(), placement))).get();
            StackClients.pollUntil(decisions, seen, s -> s.size() >= 3, Duration.ofSeconds(60));
            assertThat(seen.get(2).value().getOutcome()).isEqualTo(DecisionOutcome.RELEASED);
            // stream time moves with the journal: each poll submits another job, until one of them reaches j1's expiry
            final int[] next = {2};
            await("the expiry's route notice").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        final String id = "j" + next[0]++;
                        jobs.send(new ProducerRecord<>(clients.topics.jobs(), id,
                                Fixtures.submit(id, Fixtures.request("pool-r", 1, 1).build()))).get();
                        return routeEnds(metricsUrl, "expired") == 1.0;
                    });

            jobs.send(new ProducerRecord<>(clients.topics.jobs(), "j1", Fixtures.cancel("j1"))).get();
            final List<ConsumerRecord<byte[], byte[]>> dead = StackClients.pollUntil(dlq, new ArrayList<>(),
                    s -> !s.isEmpty(), Duration.ofSeconds(30));
            assertThat(dead).singleElement().satisfies(r -> assertThat(
                    DeadLetters.header(r.headers(), DeadLetters.ERROR_MESSAGE)).contains("no longer keeps"));
        }
    }

    private double routeEnds(final String metricsUrl, final String why) throws Exception {
        final String body = http.send(HttpRequest.newBuilder(URI.create(metricsUrl)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        for (final String line : body.split("\n")) {
            if (line.startsWith("gpupool_job_route_ends_total{") && line.contains("why=\"" + why + "\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }
}
