package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.journal.JournalApplier;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * Shedding on the real broker, exactly-once: the scheduler measures its placer's backlog from the broker and,
 * over its limit (here 1 entry, so that a burst is enough), answers new submits REJECTED OVERLOADED; every job
 * still gets exactly one first decision, the metric counts the shed ones, and a shed job's id is free again.
 */
@ExtendWith(LocalStackExtension.class)
class ShedSubmitsOnStackTest {
    private static final int BURST = 3_000;
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aBurstOverTheLimitIsShedExplicitlyAndAShedIdCanBeSubmittedAgain(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("shed");
        final StackClients clients = new StackClients(stack, prefix);
        final SchedulerOptions o = new SchedulerOptions(prefix + "-app", stack.bootstrapServers(),
                stack.requireRegistryUrl(), new Properties(), false, Files.createTempDirectory("gpupool-it-"),
                "127.0.0.1", 0, Map.of(), 50_000, 5_000, clients.catalog).withShedJournalBacklog(1);
        try (SchedulerApp app = SchedulerApp.start(o);
             KafkaProducer<String, NodeInventory> inv = clients.producer();
             KafkaProducer<String, JobCommand> jobs = clients.producer();
             KafkaConsumer<String, PlacementDecision> decisions = clients.decisionConsumer()) {
            assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
            final String metricsUrl = "http://127.0.0.1:" + app.httpPort() + "/metrics";
            inv.send(new ProducerRecord<>(clients.topics.inventory(), "n0", Fixtures.node("pool-s", "n0", "leaf-a", 8))).get();
            await("the node in the engine").atMost(Duration.ofSeconds(60)).until(() -> app.engines().nodesKnown("pool-s") == 1);
            for (int i = 0; i < BURST; i++) {
                final String id = "b" + i;
                jobs.send(new ProducerRecord<>(clients.topics.jobs(), id, Fixtures.submit(id, Fixtures.request("pool-s", 1, 1).build())));
            }
            jobs.flush();

            final Map<String, PlacementDecision> first = new HashMap<>();
            final List<ConsumerRecord<String, PlacementDecision>> seen = StackClients.pollUntil(decisions, new ArrayList<>(),
                    s -> {
                        s.forEach(r -> first.putIfAbsent(r.key(), r.value()));
                        return first.size() >= BURST;
                    }, Duration.ofSeconds(120));
            assertThat(first).hasSize(BURST);
            final List<String> shed = first.values().stream()
                    .filter(d -> JournalApplier.OVERLOADED.equals(d.getReasonCode())).map(PlacementDecision::getJobId).sorted().toList();
            assertThat(shed).as("a burst of %d against a limit of 1 entry", BURST).isNotEmpty();
            assertThat(first.values()).allSatisfy(d -> assertThat(d.getOutcome())
                    .isIn(DecisionOutcome.PLACED, DecisionOutcome.QUEUED, DecisionOutcome.REJECTED));
            assertThat(seen.stream().filter(r -> JournalApplier.OVERLOADED.equals(r.value().getReasonCode())).count())
                    .as("one answer per shed job").isEqualTo(shed.size());
            await("the shed counter").atMost(Duration.ofSeconds(10))
                    .until(() -> metric(metricsUrl, "gpupool_requests_shed_total{") == shed.size());

            // the placer caught up: the same id, sent again, is admitted
            await("no backlog left").atMost(Duration.ofSeconds(30))
                    .until(() -> metric(metricsUrl, "gpupool_journal_backlog_entries{") == 0);
            final String again = shed.get(0);
            jobs.send(new ProducerRecord<>(clients.topics.jobs(), again, Fixtures.submit(again, "again",
                    Fixtures.request("pool-s", 1, 1).build()))).get();
            final List<ConsumerRecord<String, PlacementDecision>> later = StackClients.pollUntil(decisions, new ArrayList<>(),
                    s -> s.stream().anyMatch(r -> r.key().equals(again)), Duration.ofSeconds(60));
            assertThat(later).filteredOn(r -> r.key().equals(again)).first()
                    .satisfies(r -> assertThat(r.value().getReasonCode()).isNotEqualTo(JournalApplier.OVERLOADED));
        }
    }

    /** The sum of a metric's series on the scheduler's /metrics. */
    private double metric(final String metricsUrl, final String prefix) throws Exception {
        final String body = http.send(HttpRequest.newBuilder(URI.create(metricsUrl)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        double sum = 0;
        for (final String line : body.split("\n")) {
            if (line.startsWith(prefix)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }
}
