package io.gpupool.cli.up;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.serde.SpecificAvroSerializer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code gpupool up}'s job counts come from the decisions topic: every job the scheduler decided counts,
 * whoever submitted it, and a restart (a new run over the same topic) counts neither the earlier run's jobs
 * nor their later decisions again.
 */
@ExtendWith(LocalStackExtension.class)
class DecisionTallyOnStackTest {
    private static final long RUN_1 = 1_800_000_000_000L;
    private static final long RUN_2 = RUN_1 + 600_000;

    private int sequence;

    private PlacementDecision decision(final String job, final DecisionOutcome outcome, final String reason, final long at) {
        return PlacementDecision.newBuilder().setDecisionId("p-" + sequence++).setJobId(job).setPool("p")
                .setOutcome(outcome).setReasonCode(reason).setCause(JournalPosition.newBuilder().setPartition(0)
                        .setOffset(sequence).setTimestamp(Instant.ofEpochMilli(at)).build()).build();
    }

    @Test
    void everyDecidedJobCountsOnceInTheRunItWasSubmittedIn(final TestStack stack) throws Exception {
        final String topic = stack.uniqueName("decisions");
        try (Admin admin = Admin.create(stack.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        }
        final List<PlacementDecision> run1 = List.of(
                decision("gen-1", DecisionOutcome.QUEUED, "INSUFFICIENT_FREE_GPUS", RUN_1 + 1),
                decision("gen-1", DecisionOutcome.PLACED, "PLACED", RUN_1 + 2),
                decision("gen-1", DecisionOutcome.RELEASED, "COMPLETED", RUN_1 + 3),
                decision("cli-1", DecisionOutcome.PLACED, "PLACED", RUN_1 + 4), // a `gpupool submit` job
                decision("cli-1", DecisionOutcome.RELEASED, "FAILED", RUN_1 + 5),
                decision("too-big", DecisionOutcome.REJECTED, "LARGER_THAN_POOL", RUN_1 + 6),
                decision("waits", DecisionOutcome.QUEUED, "INSUFFICIENT_FREE_GPUS", RUN_1 + 7),
                decision("dropped", DecisionOutcome.QUEUED, "INSUFFICIENT_FREE_GPUS", RUN_1 + 8),
                decision("dropped", DecisionOutcome.CANCELLED, "CANCELLED", RUN_1 + 9),
                decision("moved", DecisionOutcome.PLACED, "PLACED", RUN_1 + 10),
                decision("moved", DecisionOutcome.EVICTED, "PREEMPTED", RUN_1 + 11),
                decision("moved", DecisionOutcome.QUEUED, "PREEMPTED", RUN_1 + 11),
                decision("moved", DecisionOutcome.PLACED, "PLACED", RUN_1 + 12));
        // after the restart: the waiting job of run 1 starts, one new job, and gen-1's id submitted again
        final List<PlacementDecision> run2 = List.of(
                decision("waits", DecisionOutcome.PLACED, "PLACED", RUN_2 + 1),
                decision("cli-2", DecisionOutcome.PLACED, "PLACED", RUN_2 + 2),
                decision("gen-1", DecisionOutcome.REJECTED, "DUPLICATE_JOB", RUN_2 + 3));
        final Properties client = new Properties();
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        final SpecificAvroSerializer<PlacementDecision> values = new SpecificAvroSerializer<>();
        values.configure(Map.of(RegistryClientConfig.URL, stack.requireRegistryUrl()), false);
        try (KafkaProducer<String, PlacementDecision> producer = new KafkaProducer<>(stack.producerConfig(),
                new StringSerializer(), values)) {
            for (final PlacementDecision d : run1) {
                producer.send(new ProducerRecord<>(topic, d.getJobId(), d));
            }
            for (final PlacementDecision d : run2) {
                producer.send(new ProducerRecord<>(topic, d.getJobId(), d));
            }
            producer.flush();
        }

        try (DecisionTally first = new DecisionTally(client, stack.requireRegistryUrl(), topic, RUN_1).start();
             DecisionTally restarted = new DecisionTally(client, stack.requireRegistryUrl(), topic, RUN_2).start()) {
            // from run 1 on: gen-1, cli-1, too-big, waits, dropped, moved, cli-2 and gen-1's second submit
            final Map<String, Long> fromRun1 = Map.of("SUBMITTED", 8L, "PLACED", 5L, "COMPLETED", 1L, "FAILED", 1L,
                    "CANCELLED", 1L, "REJECTED", 2L, "EVICTED", 1L);
            // the restart's run: cli-2 and the duplicate; "waits" was run 1's job and is not counted again
            final Map<String, Long> fromRun2 = Map.of("SUBMITTED", 2L, "PLACED", 1L, "COMPLETED", 0L,
                    "FAILED", 0L, "CANCELLED", 0L, "REJECTED", 1L, "EVICTED", 0L);
            await("both runs counted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> {
                        assertThat(counts(first)).isEqualTo(fromRun1);
                        assertThat(counts(restarted)).isEqualTo(fromRun2);
                    });
            assertThat(restarted.count(DecisionTally.Count.PLACED))
                    .isLessThanOrEqualTo(restarted.count(DecisionTally.Count.SUBMITTED));
        }
    }

    private static Map<String, Long> counts(final DecisionTally t) {
        final Map<String, Long> m = new TreeMap<>();
        for (final DecisionTally.Count c : DecisionTally.Count.values()) {
            m.put(c.name(), t.count(c));
        }
        return m;
    }
}
