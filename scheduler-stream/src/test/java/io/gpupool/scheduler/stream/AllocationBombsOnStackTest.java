package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.serde.AllocationBomb;
import io.gpupool.serde.WireFormat;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The allocation bomb on every input topic of a scheduler run as its own JVM with a small heap
 * (-Xmx384m, {@link ChildScheduler}): a valid header naming the topic's registered schema, then a
 * body whose array claims 2x10^9 items. A decoder that trusts the claim runs out of heap, its
 * thread is replaced, reads the same record and fails again. Here each bomb is dead-lettered
 * once with its reason, the good jobs after the bombs are all placed, no stream thread is
 * replaced and /health says healthy.
 */
@ExtendWith(LocalStackExtension.class)
class AllocationBombsOnStackTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int JOBS = 12;
    private final HttpClient http = HttpClient.newHttpClient();

    private record Bomb(String topic, String key, Schema schema, String field) {
    }

    @Test
    void aBombOnEveryInputTopicIsDeadLetteredOnceAndGoodJobsAfterItArePlaced(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("bombs");
        final StackClients clients = new StackClients(stack, prefix);
        final Path log = Files.createTempFile("gpupool-bombs-", ".log");
        final List<String> args = new ArrayList<>(List.of("--bootstrap", stack.bootstrapServers(),
                "--registry", stack.requireRegistryUrl(), "--app-id", prefix + "-app",
                "--state-dir", Files.createTempDirectory("gpupool-bombs-state-").toString()));
        args.addAll(clients.topicArgs());
        final List<Bomb> bombs = List.of(
                new Bomb(clients.topics.inventory(), "n-bomb", NodeInventory.getClassSchema(), "gpus"),
                new Bomb(clients.topics.telemetryGpu(), "n0", GpuSamples.getClassSchema(), "gpus"),
                new Bomb(clients.topics.telemetryLink(), "n0", LinkSamples.getClassSchema(), "ports"),
                new Bomb(clients.topics.jobs(), "job-bomb", JobCommand.getClassSchema(), "gpuModels"),
                new Bomb(clients.topics.jobEvents(), "job-0", JobEvent.getClassSchema(), "gpuUuids"),
                new Bomb(clients.topics.journal(), "p1", JournalEntry.getClassSchema(), "gpus"));

        try (ChildScheduler child = ChildScheduler.start(args, log);
             KafkaProducer<String, NodeInventory> inv = clients.producer();
             KafkaProducer<String, JobCommand> jobs = clients.producer();
             KafkaProducer<byte[], byte[]> raw = clients.rawProducer();
             KafkaConsumer<String, PlacementDecision> decisions = clients.decisionConsumer();
             KafkaConsumer<byte[], byte[]> dlq = clients.rawConsumer(clients.topics.dlq())) {
            child.awaitReady(Duration.ofSeconds(120));
            for (int n = 0; n < 2; n++) {
                inv.send(new ProducerRecord<>(clients.topics.inventory(), "n" + n, Fixtures.node("p1", "n" + n, "leaf-a", 8)));
            }
            inv.flush();
            for (final Bomb b : bombs) {
                final int id = clients.codecs.registry().register(WireFormat.subject(b.topic(), false), b.schema());
                raw.send(new ProducerRecord<>(b.topic(), b.key().getBytes(StandardCharsets.UTF_8),
                        AllocationBomb.record(id, b.schema(), b.field())));
            }
            raw.flush();
            for (int i = 0; i < JOBS; i++) {
                jobs.send(new ProducerRecord<>(clients.topics.jobs(), "job-" + i,
                        Fixtures.submit("job-" + i, Fixtures.request("p1", 1, 1).build())));
            }
            jobs.flush();

            final List<ConsumerRecord<String, PlacementDecision>> decided = StackClients.pollUntil(decisions,
                    new ArrayList<>(), s -> placed(s) == JOBS, Duration.ofSeconds(90));
            assertThat(placed(decided)).as("good jobs placed after the bombs; child log " + log).isEqualTo(JOBS);

            final List<ConsumerRecord<byte[], byte[]>> dead = StackClients.pollUntil(dlq, new ArrayList<>(),
                    s -> s.size() >= bombs.size(), Duration.ofSeconds(30));
            // once more after the last one arrived: a second dead letter of any bomb would show here
            StackClients.pollUntil(dlq, dead, s -> false, Duration.ofSeconds(3));
            final Map<String, String> reasonByTopic = new TreeMap<>();
            for (final ConsumerRecord<byte[], byte[]> r : dead) {
                final String topic = DeadLetters.header(r.headers(), DeadLetters.TOPIC);
                assertThat(reasonByTopic.put(topic, DeadLetters.header(r.headers(), DeadLetters.ERROR_MESSAGE)))
                        .as("dead letters of " + topic + "; child log " + log).isNull();
            }
            assertThat(reasonByTopic.keySet()).containsExactlyInAnyOrderElementsOf(bombs.stream().map(Bomb::topic).toList());
            assertThat(reasonByTopic.values()).allSatisfy(reason -> assertThat(reason)
                    .contains("array of 2000000000 items in a").contains("bytes left"));

            final String base = "http://127.0.0.1:" + child.httpPort();
            final String metrics = get(base + "/metrics").body();
            assertThat(replacedThreads(metrics)).as("stream threads replaced").isLessThanOrEqualTo(1.0);
            final HttpResponse<String> health = get(base + "/health");
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            final JsonNode body = JSON.readTree(health.body());
            assertThat(body.get("healthy").asBoolean()).isTrue();
            assertThat(body.get("state").asText()).isEqualTo("RUNNING");
        }
    }

    private static long placed(final List<ConsumerRecord<String, PlacementDecision>> seen) {
        return seen.stream().filter(r -> r.value().getOutcome() == DecisionOutcome.PLACED).count();
    }

    private static double replacedThreads(final String metrics) {
        final Matcher m = Pattern.compile("(?m)^gpupool_stream_threads_replaced_total(\\{[^}]*\\})? (\\S+)$").matcher(metrics);
        assertThat(m.find()).as("the replacement counter is exported; /metrics began with: %s",
                metrics.substring(0, Math.min(metrics.length(), 400))).isTrue();
        return Double.parseDouble(m.group(2));
    }

    private HttpResponse<String> get(final String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
