package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.app.SchedulerApp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The application on the real local broker (exactly-once): a small fabric, jobs through both stages,
 * a burst of malformed records that ends in the DLQ while good records keep flowing, and the HTTP
 * queries and metrics.
 */
@ExtendWith(LocalStackExtension.class)
class SchedulerOnStackTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void jobsFlowThroughBothStagesMalformedRecordsGoToTheDlqAndQueriesAnswer(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("flow");
        final StackClients clients = new StackClients(stack, prefix);
        final SchedulerOptions o = new SchedulerOptions(prefix + "-app", stack.bootstrapServers(),
                stack.requireRegistryUrl(), new Properties(), false, Files.createTempDirectory("gpupool-it-"),
                "127.0.0.1", 0, Map.of(), 25, 5_000, clients.catalog);
        try (SchedulerApp app = SchedulerApp.start(o);
             KafkaProducer<String, NodeInventory> inv = clients.producer();
             KafkaProducer<String, JobCommand> jobs = clients.producer();
             KafkaProducer<byte[], byte[]> raw = clients.rawProducer();
             KafkaConsumer<String, PlacementDecision> decisions = clients.decisionConsumer();
             KafkaConsumer<byte[], byte[]> dlq = clients.rawConsumer(clients.topics.dlq())) {
            assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
            for (int n = 0; n < 4; n++) {
                inv.send(new ProducerRecord<>(clients.topics.inventory(), "n" + n,
                        Fixtures.node("pool-a", "n" + n, "leaf-" + (n / 2), 8)));
            }
            inv.flush();
            // the nodes first: a job that came before them would be QUEUED and then PLACED, and too-big would wait
            await("4 nodes in the engine").atMost(Duration.ofSeconds(60)).until(() -> app.engines().nodesKnown("pool-a") == 4);
            for (int i = 0; i < 10; i++) {
                jobs.send(new ProducerRecord<>(clients.topics.jobs(), "good-" + i,
                        Fixtures.submit("good-" + i, Fixtures.request("pool-a", 1, 2).build())));
                // interleaved garbage on every input topic: it must not stop the good records
                raw.send(new ProducerRecord<>(clients.topics.jobs(), ("bad-" + i).getBytes(StandardCharsets.UTF_8),
                        ("garbage " + i).getBytes(StandardCharsets.UTF_8)));
                raw.send(new ProducerRecord<>(clients.topics.telemetryGpu(), ("n" + (i % 4)).getBytes(StandardCharsets.UTF_8),
                        new byte[] {0, 0, 0, 0, 99, 1, 2}));
            }
            jobs.send(new ProducerRecord<>(clients.topics.jobs(), "too-big",
                    Fixtures.submit("too-big", Fixtures.request("pool-a", 1, 16).build())));
            jobs.flush();
            raw.flush();
            final List<ConsumerRecord<String, PlacementDecision>> seen = StackClients.pollUntil(decisions, new ArrayList<>(),
                    s -> s.size() >= 11, Duration.ofSeconds(60));
            // the whole pool, while 20 GPUs are taken: it must wait
            jobs.send(new ProducerRecord<>(clients.topics.jobs(), "waits",
                    Fixtures.submit("waits", Fixtures.request("pool-a", 4, 8).build())));
            jobs.flush();
            StackClients.pollUntil(decisions, seen, s -> s.size() >= 12, Duration.ofSeconds(60));
            final List<String> outcomes = seen.stream().map(r -> r.key() + ":" + r.value().getOutcome()).toList();
            for (int i = 0; i < 10; i++) {
                assertThat(outcomes).contains("good-" + i + ":PLACED");
            }
            assertThat(outcomes).contains("too-big:REJECTED", "waits:QUEUED");
            assertThat(seen).allSatisfy(r -> assertThat(r.value().getCause().getOffset()).isGreaterThanOrEqualTo(0));

            final List<ConsumerRecord<byte[], byte[]>> dead = StackClients.pollUntil(dlq, new ArrayList<>(),
                    s -> s.size() >= 20, Duration.ofSeconds(30));
            assertThat(dead).hasSize(20);
            assertThat(dead).allSatisfy(r -> {
                assertThat(DeadLetters.header(r.headers(), DeadLetters.TOPIC)).isIn(clients.topics.jobs(), clients.topics.telemetryGpu());
                assertThat(Long.parseLong(DeadLetters.header(r.headers(), DeadLetters.OFFSET))).isGreaterThanOrEqualTo(0);
                assertThat(DeadLetters.header(r.headers(), DeadLetters.ERROR_CLASS)).isNotBlank();
                assertThat(DeadLetters.header(r.headers(), DeadLetters.ERROR_MESSAGE)).isNotBlank();
            });
            assertThat(dead.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)))
                    .contains("garbage 0", "garbage 9");

            final String base = "http://127.0.0.1:" + app.httpPort();
            final JsonNode pool = get(base + "/pools/pool-a", 200);
            assertThat(pool.at("/gpus/total").asLong()).isEqualTo(32);
            assertThat(pool.at("/gpus/allocated").asLong()).isEqualTo(20);
            assertThat(pool.at("/queue/total").asInt()).isEqualTo(1);
            assertThat(pool.at("/queue/byTenant/team-a").asInt()).isEqualTo(1);
            final JsonNode waits = get(base + "/jobs/waits", 200);
            assertThat(waits.get("state").asText()).isEqualTo("queued");
            assertThat(waits.at("/reason/code").asText()).isNotBlank();
            assertThat(waits.get("history")).hasSize(1);
            final JsonNode queued = get(base + "/jobs?state=queued", 200);
            assertThat(queued).hasSize(1);
            assertThat(queued.get(0).get("jobId").asText()).isEqualTo("waits");
            final JsonNode node = get(base + "/nodes/n0", 200);
            assertThat(node.get("gpus")).hasSize(8);
            get(base + "/jobs/nope", 404);
            get(base + "/pools/nope", 404);
            queriesAnswerWhileThePlacerHoldsThePoolsLock(app.engines().pool("pool-a").orElseThrow(), base);

            final String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("gpupool_decisions_total{", "outcome=\"PLACED\"",
                    "gpupool_request_to_decision_seconds_bucket", "gpupool_dlq_records_total",
                    "gpupool_journal_lag_seconds", "kafka_stream_");
            // the gauges refresh every few seconds; the first refresh adds them one after another
            final List<String> gauges = List.of("gpupool_gpus{", "state=\"allocated\"", "gpupool_queue_depth{",
                    "gpupool_fragmentation{");
            await("the pool gauges").atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(500)).until(() -> http.send(HttpRequest.newBuilder(
                            URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body(),
                            m -> gauges.stream().allMatch(m::contains));
            assertThat(seen.stream().filter(r -> r.value().getOutcome() == DecisionOutcome.PLACED)).hasSize(10);
        }
    }

    /**
     * Queries read the pool's published view, not the live engine: they answer while the placer holds the
     * pool's lock (as it does applying an entry), and say which journal offset they saw and how old it is.
     */
    private void queriesAnswerWhileThePlacerHoldsThePoolsLock(final PoolEngines.Handle pool, final String base)
            throws Exception {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Void> placer = CompletableFuture.runAsync(() -> {
            synchronized (pool) {
                held.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        try {
            assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
            final JsonNode p = get(base + "/pools/pool-a", 200);
            assertThat(p.at("/gpus/allocated").asLong()).isEqualTo(20);
            assertThat(p.at("/view/journalOffset").asLong()).isEqualTo(pool.journalOffset())
                    .isEqualTo(p.at("/view/placerJournalOffset").asLong());
            assertThat(p.at("/view/ageMs").asLong()).isGreaterThanOrEqualTo(0);
            final JsonNode queued = get(base + "/jobs?state=queued", 200);
            assertThat(queued).hasSize(1);
            assertThat(queued.get(0).at("/view/journalOffset").asLong()).isEqualTo(pool.journalOffset());
            assertThat(get(base + "/jobs/waits", 200).at("/reason/code").asText()).isNotBlank();
            assertThat(get(base + "/nodes/n0", 200).at("/view/journalOffset").asLong()).isEqualTo(pool.journalOffset());
        } finally {
            release.countDown();
        }
        placer.get(30, TimeUnit.SECONDS);
    }

    private JsonNode get(final String url, final int status) throws Exception {
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                        .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url + " -> " + r.body()).isEqualTo(status);
        return JSON.readTree(r.body());
    }
}
