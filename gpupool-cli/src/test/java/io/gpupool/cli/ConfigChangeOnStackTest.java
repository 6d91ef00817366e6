package io.gpupool.cli;

import static io.gpupool.cli.HistoryCommandsOnStackTest.poll;
import static io.gpupool.cli.HistoryCommandsOnStackTest.run;
import static io.gpupool.cli.HistoryCommandsOnStackTest.submit;
import static io.gpupool.cli.HistoryCommandsOnStackTest.summaryLine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.audit.SyntheticHistory;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine configuration is part of the record: a scheduler runs with one quota, is stopped and
 * started again (same application, same state) with another, and the audit, run with today's settings,
 * replays the first run's entries under the first run's quota and the second's under the second's. It
 * names the change and finds no divergence. Before the settings were journaled, the restarted placer
 * itself re-applied the first run's entries under the new quota: it placed the two waiting jobs in its
 * restore, where outputs are dropped, so they never got a decision (seen: only j4 and j5 were placed in
 * the second run); and the audit re-ran the first run under today's quota. (The audit's own settings
 * differ from the first run's too; that is not a change in the history, and is not listed.) The second run
 * also has a poison input (a failpoint makes the engine throw on j6): it is rejected and skipped, and the
 * audit skips it the same way.
 */
@ExtendWith(LocalStackExtension.class)
class ConfigChangeOnStackTest {
    private static final String QUOTA = "tenant.team-a.max-gpus";
    private static final String POISON = "failpoint.allocate";

    @TempDir
    Path dir;

    @Test
    void aQuotaChangedBetweenTwoRunsIsAuditedAsAChangeNotAsDivergence(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("cfg");
        final TopicCatalog catalog = HistoryCommandsOnStackTest.catalog(prefix);
        final TopicNames topics = TopicNames.of(catalog);
        final Codecs codecs = HistoryCommandsOnStackTest.codecs(stack);
        final Path state = Files.createTempDirectory(dir, "state");
        final List<ConsumerRecord<String, PlacementDecision>> seen = new ArrayList<>();
        try (KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(stack.producerConfig(),
                     new StringSerializer(), codecs.<SpecificRecord>serializer());
             KafkaConsumer<String, PlacementDecision> decisions = new KafkaConsumer<>(
                     stack.consumerConfig(stack.uniqueName("cfg-d")), new StringDeserializer(),
                     codecs.deserializer(PlacementDecision.class))) {
            decisions.subscribe(List.of(topics.decisions()));
            // run 1: team-a may hold 8 GPUs: two of four 1x4 jobs are placed, two wait for the quota
            try (SchedulerApp app = SchedulerApp.start(options(stack, prefix, state, catalog, Map.of(QUOTA, "8")))) {
                assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
                for (int n = 0; n < 4; n++) {
                    final NodeInventory node = SyntheticHistory.node("pool-h", "n" + n, "leaf-" + (n / 2), 8);
                    producer.send(new ProducerRecord<>(topics.inventory(), "n" + n, node));
                }
                producer.flush();
                // the nodes first, so that the quota is what keeps jobs waiting
                await("4 nodes in the engine").atMost(Duration.ofSeconds(60)).until(() -> app.engines().nodesKnown("pool-h") == 4);
                for (int i = 0; i < 4; i++) {
                    producer.send(new ProducerRecord<>(topics.jobs(), "j" + i, submit("j" + i, 1, 4)));
                }
                producer.flush();
                poll(decisions, seen, 4);
            }
            assertThat(seen).extracting(r -> r.value().getOutcome()).containsExactlyInAnyOrder(DecisionOutcome.PLACED,
                    DecisionOutcome.PLACED, DecisionOutcome.QUEUED, DecisionOutcome.QUEUED);
            // run 2: the same scheduler with the quota raised and a failpoint that makes the engine throw on j6 (a
            // poison input); new jobs come, and the waiting ones get their GPUs
            try (SchedulerApp app = SchedulerApp.start(options(stack, prefix, state, catalog,
                    Map.of(QUOTA, "32", POISON, "j6:0")))) {
                assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
                for (int i = 4; i < 8; i++) {
                    producer.send(new ProducerRecord<>(topics.jobs(), "j" + i, submit("j" + i, 1, 4)));
                }
                producer.flush();
                poll(decisions, seen, 10); // j2 and j3 placed, j4 and j5 placed, j6 rejected, j7 placed
            }
        }
        assertThat(seen.stream().filter(r -> r.value().getOutcome() == DecisionOutcome.PLACED)
                .map(ConsumerRecord::key)).containsExactlyInAnyOrder("j0", "j1", "j2", "j3", "j4", "j5", "j7");
        assertThat(seen).filteredOn(r -> r.key().equals("j6")).singleElement().satisfies(r -> {
            assertThat(r.value().getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
            assertThat(r.value().getReasonCode()).isEqualTo("SCHEDULER_ERROR");
        });

        final List<String> at = List.of("--bootstrap-server", stack.bootstrapServers(), "--registry-url",
                stack.requireRegistryUrl(), "--topic-name", "journal=" + topics.journal(), "--topic-name",
                "decisions=" + topics.decisions(), "--topic-name", "node-commands=" + topics.nodeCommands(),
                "--topic-name", "job-events=" + topics.jobEvents());
        // the audit is given today's settings, as an operator would; the journal says what each run had
        final CliRun audit = run("audit", at, "--set", QUOTA + "=32");
        assertThat(audit.exitCode()).as(audit.out() + audit.err()).isZero();
        assertThat(audit.out()).containsPattern("pool pool-h: engine configuration changed at journal \\d+@\\d+: "
                + POISON.replace(".", "\\.") + ":  -> j6:0, " + QUOTA.replace(".", "\\.") + ": 8 -> 32");
        final String summary = summaryLine(audit.out());
        assertThat(summary).contains("divergent=0 violations=0").contains("commands_divergent=0");
        // the poison input is skipped by the audit as the placer skipped it: named, and no divergence
        assertThat(audit.out()).contains("skipped_entries=1").containsPattern("journal entry \\d+@\\d+ of pool pool-h"
                + " \\(JobCommand\\): the engine threw IllegalStateException; skipped as the placer skips it");
        assertThat(Long.parseLong(summary.replaceAll(".* matched=(\\d+).*", "$1"))).isGreaterThanOrEqualTo(seen.size());

        // what-if lays its settings over the journaled ones: the recorded run's figures come out as recorded
        final CliRun replay = run("replay", at, "--set", "backfill=false", "--chart", dir.resolve("r.png").toString());
        assertThat(replay.exitCode()).as(replay.out() + replay.err()).isZero();
    }

    private static SchedulerOptions options(final TestStack stack, final String prefix, final Path state,
                                            final TopicCatalog catalog, final Map<String, String> settings) {
        return new SchedulerOptions(prefix + "-app", stack.bootstrapServers(), stack.requireRegistryUrl(),
                new Properties(), false, state, "", 0, settings, 10, 5_000, catalog);
    }
}
