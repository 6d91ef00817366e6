package io.gpupool.scheduler.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.topics.Topic;
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
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of one scheduler application on the real broker share the journal's partitions.
 * Every query gives the same answer on either instance: a pool's engine is asked where it lives
 * (queryMetadataForKey, application.server), jobs and the queue are gathered from every instance.
 */
@ExtendWith(LocalStackExtension.class)
class QueriesAcrossInstancesOnStackTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void eitherInstanceAnswersForEveryPoolAndJob(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("two");
        final StackClients clients = new StackClients(stack, prefix);
        final int partitions = clients.catalog.spec(Topic.JOURNAL).partitions();
        // one pool per journal partition, so that whichever way the tasks are split, some pool is remote
        final List<String> pools = new ArrayList<>();
        final TreeSet<Integer> covered = new TreeSet<>();
        for (int i = 0; covered.size() < partitions; i++) {
            final String pool = "pool-q" + i;
            if (covered.add(Utils.toPositive(Utils.murmur2(pool.getBytes(StandardCharsets.UTF_8))) % partitions)) {
                pools.add(pool);
            }
        }
        final SchedulerOptions a = options(stack, clients, prefix);
        final SchedulerOptions b = options(stack, clients, prefix);
        try (SchedulerApp one = SchedulerApp.start(a);
             SchedulerApp two = SchedulerApp.start(b);
             KafkaProducer<String, NodeInventory> inv = clients.producer();
             KafkaProducer<String, JobCommand> jobs = clients.producer();
             KafkaConsumer<String, PlacementDecision> decisions = clients.decisionConsumer()) {
            assertThat(one.awaitRunning(Duration.ofSeconds(90))).isTrue();
            assertThat(two.awaitRunning(Duration.ofSeconds(90))).isTrue();
            for (final String pool : pools) {
                for (int n = 0; n < 2; n++) {
                    final String node = pool + "-n" + n;
                    inv.send(new ProducerRecord<>(clients.topics.inventory(), node, Fixtures.node(pool, node, "leaf-0", 8)));
                }
            }
            inv.flush();
            final List<String> bases = List.of("http://127.0.0.1:" + one.httpPort(), "http://127.0.0.1:" + two.httpPort());
            // inventory and jobs are read by different stage-1 tasks: submit once each pool has both nodes
            for (final String pool : pools) {
                awaitGpus(bases.get(0) + "/pools/" + pool, 16);
            }
            final List<ConsumerRecord<String, PlacementDecision>> seen = new ArrayList<>();
            for (final String pool : pools) {
                // the whole pool, then one more node's worth: placed, then queued
                jobs.send(new ProducerRecord<>(clients.topics.jobs(), pool + "-big",
                        Fixtures.submit(pool + "-big", Fixtures.request(pool, 2, 8).build())));
            }
            jobs.flush();
            StackClients.pollUntil(decisions, seen, s -> s.size() >= pools.size(), Duration.ofSeconds(90));
            for (final String pool : pools) {
                jobs.send(new ProducerRecord<>(clients.topics.jobs(), pool + "-waits",
                        Fixtures.submit(pool + "-waits", Fixtures.request(pool, 1, 8).build())));
            }
            jobs.flush();
            StackClients.pollUntil(decisions, seen, s -> s.size() >= 2 * pools.size(), Duration.ofSeconds(90));
            assertThat(seen.stream().map(r -> r.key() + ":" + r.value().getOutcome()).sorted().toList())
                    .containsExactlyElementsOf(pools.stream().flatMap(p -> Stream.of(p + "-big:PLACED",
                            p + "-waits:QUEUED")).sorted().toList());

            for (final String pool : pools) {
                final List<String> answers = new ArrayList<>();
                for (final String base : bases) {
                    final JsonNode p = get(base + "/pools/" + pool);
                    assertThat(p.at("/gpus/total").asLong()).as(base + " " + pool).isEqualTo(16);
                    assertThat(p.at("/gpus/allocated").asLong()).as(base + " " + pool).isEqualTo(16);
                    assertThat(p.at("/queue/total").asInt()).as(base + " " + pool).isEqualTo(1);
                    // the same view from either instance; only its age depends on when it was asked
                    assertThat(p.at("/view/journalOffset").asLong()).isEqualTo(p.get("journalOffset").asLong());
                    final ObjectNode sameView = p.deepCopy();
                    sameView.remove("view");
                    answers.add(sameView.toString());
                    assertThat(get(base + "/jobs/" + pool + "-big").get("state").asText()).isEqualTo("placed");
                    assertThat(get(base + "/jobs/" + pool + "-waits").get("state").asText()).isEqualTo("queued");
                    assertThat(get(base + "/nodes/" + pool + "-n1").get("gpus")).hasSize(8);
                }
                assertThat(answers.get(1)).as(pool + " from both instances").isEqualTo(answers.get(0));
            }
            for (final String base : bases) {
                final TreeSet<String> queued = new TreeSet<>();
                get(base + "/jobs?state=queued").forEach(j -> queued.add(j.get("jobId").asText()));
                assertThat(queued).as(base).containsExactlyElementsOf(pools.stream().map(p -> p + "-waits").sorted().toList());
            }
        }
    }

    private static SchedulerOptions options(final TestStack stack, final StackClients clients, final String prefix)
            throws Exception {
        return new SchedulerOptions(prefix + "-app", stack.bootstrapServers(), stack.requireRegistryUrl(), new Properties(),
                false, Files.createTempDirectory("gpupool-it-"), "127.0.0.1", 0, Map.of(), 1_000, 5_000, clients.catalog);
    }

    private void awaitGpus(final String url, final long gpus) throws Exception {
        await(gpus + " GPUs at " + url).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(url).at("/gpus/total").asLong() >= gpus);
        assertThat(get(url).at("/gpus/total").asLong()).as(url).isEqualTo(gpus);
    }

    /** A 200 answer, retried while the instances are still settling (a rebalance moves the tasks). */
    private JsonNode get(final String url) throws Exception {
        final HttpResponse<String> r = await("200 from " + url).atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()),
                        answer -> answer.statusCode() == 200);
        return JSON.readTree(r.body());
    }
}
