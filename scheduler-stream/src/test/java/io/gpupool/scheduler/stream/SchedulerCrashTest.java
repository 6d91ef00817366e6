package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.CommittedRecords;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.core.EngineConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The scheduler as a child JVM, killed with SIGKILL while jobs flow, restarted on an empty state
 * directory (so its engines come back from the changelogged stores, not from the journal). Then:
 * every job has exactly one decision chain ending in RELEASED or REJECTED, no decision is
 * duplicated or lost, no GPU was ever double-allocated (replaying the decisions log), and the
 * journal replayed offline reproduces every recorded decision byte for byte.
 */
@ExtendWith(LocalStackExtension.class)
// a child JVM's start, kill and takeover are mostly waiting: it runs beside the sequential classes (see the
// root pom's surefire settings), on topics and an application id of its own
@Execution(ExecutionMode.CONCURRENT)
class SchedulerCrashTest {
    private static final int JOBS = 300;

    @Test
    void killedMidStreamAndRestartedLosesAndDuplicatesNothing(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("crash");
        final StackClients clients = new StackClients(stack, prefix);
        final Path log = Files.createTempFile("gpupool-child-", ".log");
        final List<String> args = new ArrayList<>(List.of("--bootstrap", stack.bootstrapServers(),
                "--registry", stack.requireRegistryUrl(), "--app-id", prefix + "-app", "--snapshot-every", "40",
                "--kafka.session.timeout.ms", "6000", "--kafka.heartbeat.interval.ms", "1500"));
        args.addAll(clients.topicArgs());

        final Map<String, List<PlacementDecision>> byJob = new HashMap<>();
        final List<PlacementDecision> all = new ArrayList<>();
        final Set<String> completed = new HashSet<>();
        final Random rnd = new Random(3);
        try (KafkaProducer<String, NodeInventory> inv = clients.producer();
             KafkaProducer<String, JobCommand> jobs = clients.producer();
             KafkaProducer<String, JobEvent> events = clients.producer();
             KafkaConsumer<String, PlacementDecision> decisions = clients.decisionConsumer()) {
            final AtomicReference<ChildScheduler> child = new AtomicReference<>(ChildScheduler.start(withStateDir(args), log));
            try {
                child.get().awaitReady(Duration.ofSeconds(120));
                for (final String pool : List.of("pa", "pb")) {
                    for (int n = 0; n < 4; n++) {
                        final String id = pool + "-n" + n;
                        inv.send(new ProducerRecord<>(clients.topics.inventory(), id, Fixtures.node(pool, id, pool + "-leaf" + (n / 2), 8)));
                    }
                }
                inv.flush();
                final AtomicInteger sent = new AtomicInteger();
                final AtomicBoolean killed = new AtomicBoolean();
                // Each round sends up to ten jobs, kills the scheduler once, and answers what was decided.
                await("every job finished; child log " + log).atMost(Duration.ofMinutes(4)).pollInSameThread().pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(1)).until(() -> {
                    if (sent.get() < JOBS) {
                        for (int k = 0; k < 10 && sent.get() < JOBS; k++) {
                            final String id = "job-" + sent.getAndIncrement();
                            final int gpus = 1 << rnd.nextInt(4);
                            jobs.send(new ProducerRecord<>(clients.topics.jobs(), id, Fixtures.submit(id,
                                    Fixtures.request(rnd.nextBoolean() ? "pa" : "pb", rnd.nextInt(6) == 0 ? 2 : 1, gpus).build())));
                        }
                        jobs.flush();
                    }
                    if (!killed.get() && sent.get() >= JOBS / 3 && all.size() > 40) {
                        child.get().kill(); // SIGKILL mid-stream: a transaction is open, nothing is flushed cleanly
                        killed.set(true);
                        child.set(ChildScheduler.start(withStateDir(args), log)); // a fresh, empty state directory
                        child.get().awaitReady(Duration.ofSeconds(120));
                    }
                    for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(150))) {
                        all.add(r.value());
                        byJob.computeIfAbsent(r.key(), j -> new ArrayList<>()).add(r.value());
                        if (r.value().getOutcome() == DecisionOutcome.PLACED && completed.add(r.key())) {
                            // the test is the sink: the job ran and finished
                            events.send(new ProducerRecord<>(clients.topics.jobEvents(), r.key(),
                                    Fixtures.event(r.key(), JobEventType.COMPLETED, System.currentTimeMillis(),
                                            r.value().getDecisionId())));
                        }
                    }
                    events.flush();
                    return sent.get() == JOBS && finished(byJob) == JOBS;
                });
                assertThat(killed).isTrue();
                // the restarted scheduler's histories (stored with snapshots, decided again from the tails since)
                // are every job's decisions as the decisions topic has them
                for (final Map.Entry<String, List<PlacementDecision>> e : byJob.entrySet()) {
                    assertThat(historyOf(child.get().httpPort(), e.getKey())).as("history of " + e.getKey())
                            .isEqualTo(e.getValue().stream().map(PlacementDecision::getDecisionId).toList());
                }
            } finally {
                child.get().close();
            }
        }

        assertThat(finished(byJob)).as("jobs with a final decision; child log " + log).isEqualTo(JOBS);
        for (final Map.Entry<String, List<PlacementDecision>> e : byJob.entrySet()) {
            final String chain = e.getValue().stream().map(d -> d.getOutcome().name()).collect(Collectors.joining(" "));
            assertThat(chain).as("decision chain of " + e.getKey()).matches("(QUEUED )?(PLACED RELEASED|REJECTED)");
        }
        assertThat(DecisionLog.problems(all)).isEmpty();

        // the journal replayed offline gives the same decisions, byte for byte
        final Map<String, byte[]> recorded = new HashMap<>();
        for (final PlacementDecision d : all) {
            recorded.put(d.getDecisionId(), RestoreAndReplayTest.bytes(d));
        }
        final JournalReplay replay = new JournalReplay(p -> EngineConfig.fromSettings(Map.of("pool", p)));
        for (final ConsumerRecord<String, JournalEntry> r : readJournal(clients)) {
            replay.apply(r.value(), r.partition(), r.offset());
        }
        final Map<String, byte[]> replayed = new HashMap<>();
        for (final PlacementDecision d : replay.decisions()) {
            replayed.put(d.getDecisionId(), RestoreAndReplayTest.bytes(d));
        }
        assertThat(replayed.keySet()).isEqualTo(recorded.keySet());
        for (final String id : recorded.keySet()) {
            assertThat(replayed.get(id)).as("decision " + id).isEqualTo(recorded.get(id));
        }
    }

    private static List<String> historyOf(final int port, final String jobId) throws Exception {
        final HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/jobs/" + jobId)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET /jobs/" + jobId + ": " + r.body()).isEqualTo(200);
        final List<String> ids = new ArrayList<>();
        new ObjectMapper().readTree(r.body()).path("history").forEach(d -> ids.add(d.path("decisionId").asText()));
        return ids;
    }

    private static List<String> withStateDir(final List<String> args) throws Exception {
        final List<String> a = new ArrayList<>(args);
        a.add("--state-dir");
        a.add(Files.createTempDirectory("gpupool-crash-state-").toString());
        return a;
    }

    private static long finished(final Map<String, List<PlacementDecision>> byJob) {
        return byJob.values().stream().filter(l -> {
            final DecisionOutcome last = l.get(l.size() - 1).getOutcome();
            return last == DecisionOutcome.RELEASED || last == DecisionOutcome.REJECTED;
        }).count();
    }

    /** The whole journal, committed records only, in partition/offset order. */
    private static List<ConsumerRecord<String, JournalEntry>> readJournal(final StackClients clients) {
        return CommittedRecords.readAll(clients.stack, clients.topics.journal(), new StringDeserializer(),
                clients.codecs.deserializer(JournalEntry.class));
    }
}
