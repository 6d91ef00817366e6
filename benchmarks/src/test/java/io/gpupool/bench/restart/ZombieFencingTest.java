package io.gpupool.bench.restart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.NodeCommand;
import io.gpupool.localstack.testing.CommittedRecords;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.stream.StreamsSettings;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Two scheduler instances; the one placing the pool is paused with SIGSTOP past its session timeout, the
 * other takes its tasks over and decides, then the paused one is resumed. Whatever it still had in flight
 * is fenced: no decision and no node command appears twice on a read_committed reading (their ids follow from
 * the journal entry, so a late write of the paused one would repeat one the new owner made), every job gets
 * its final decision, and the audit is clean.
 */
@ExtendWith(LocalStackExtension.class)
// a child JVM's start, kill and takeover are mostly waiting: it runs beside the sequential classes (see the
// root pom's surefire settings), on topics and an application id of its own
@Execution(ExecutionMode.CONCURRENT)
class ZombieFencingTest {
    /** The broker's shortest session: the takeover comes 6 s after the pause. */
    private static List<String> withInstance(final String name) {
        return List.of("--instance-id", name, "--session-timeout-ms", "6000");
    }

    @Test
    void aPausedInstanceResumedAfterTheTakeoverWritesNothingThatCounts(final TestStack stack) throws Exception {
        final RestartBenchOptions o = new RestartBenchOptions(stack.bootstrapServers(), stack.requireRegistryUrl(),
                new Properties(), 1, 6, 3, Duration.ZERO, Duration.ZERO, Files.createTempDirectory("gpupool-zombie-"));
        final Map<String, String> figures = new LinkedHashMap<>();
        try (RestartRig rig = new RestartRig(o, System.err); Admin admin = Admin.create(Map.of("bootstrap.servers",
                stack.bootstrapServers()))) {
            final Map<String, SchedulerProcess> instances = new LinkedHashMap<>();
            try {
                for (final String name : List.of("a", "b")) {
                    instances.put(name, rig.scheduler(name, withInstance(name)));
                    instances.get(name).awaitReady(Duration.ofMinutes(2));
                    if (name.equals("a")) {
                        rig.startPipeline();
                    }
                }
                final TopicPartition placed = journalPartitionOf(rig, RestartRig.POOL);
                // the placer task of the pool, once both instances are in the group and have decided
                final String owner = await("an instance owns " + placed).atMost(Duration.ofMinutes(2))
                        .ignoreExceptionsInstanceOf(ExecutionException.class)
                        .until(() -> ownerOf(admin, rig.applicationId(), placed), Optional::isPresent).get();
                assertThat(rig.decisions().decisions()).isPositive();

                final SchedulerProcess paused = instances.get(owner);
                paused.signal("STOP");
                final String other = owner.equals("a") ? "b" : "a";
                await("the other instance takes " + placed + " over").atMost(Duration.ofMinutes(2))
                        .until(() -> ownerOf(admin, rig.applicationId(), placed), o2 -> o2.equals(Optional.of(other)));
                rig.decisions().firstDecisionAfter(System.currentTimeMillis()).get(2, TimeUnit.MINUTES);
                paused.signal("CONT");
                // the resumed instance finds itself out of the group and rejoins, while the load goes on: both
                // instances' members (one per stream thread) are in it again
                final int threads = StreamsSettings.streamThreadsHere();
                await("the resumed instance back in the group").atMost(Duration.ofMinutes(2))
                        .until(() -> members(admin, rig.applicationId()), n -> n == 2 * threads);
                rig.finish(Duration.ofMinutes(1));
                rig.putOutcome(figures);
            } finally {
                for (final SchedulerProcess p : instances.values()) {
                    p.signal("CONT");
                    p.close();
                }
            }
            assertThat(figures).as("figures").containsEntry("jobs_without_final_decision", "0")
                    .containsEntry("decisions_duplicated", "0");
            assertThat(commandsWrittenTwice(stack, rig)).as("node commands written twice").isZero();
            assertThat(rig.audit().passed()).as("audit").isTrue();
        }
    }

    private static int members(final Admin admin, final String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group).members().size();
    }

    /** The instance ("a" or "b") whose member is assigned this partition, if one is. */
    private static Optional<String> ownerOf(final Admin admin, final String group, final TopicPartition tp) throws Exception {
        for (final MemberDescription m : admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
                .get(group).members()) {
            if (m.assignment().topicPartitions().contains(tp)) {
                return m.groupInstanceId().map(id -> id.substring(0, id.lastIndexOf('-')));
            }
        }
        return Optional.empty();
    }

    /** The journal partition of a pool: stage 1 keys the journal by pool, with the default partitioner. */
    private static TopicPartition journalPartitionOf(final RestartRig rig, final String pool) {
        final int partitions = rig.catalog().spec(Topic.JOURNAL).partitions();
        return new TopicPartition(rig.topics().journal(),
                Utils.toPositive(Utils.murmur2(pool.getBytes(StandardCharsets.UTF_8))) % partitions);
    }

    private static long commandsWrittenTwice(final TestStack stack, final RestartRig rig) {
        final Map<String, Object> serde = AvroSerdeConfig.forClient(new Properties(), stack.requireRegistryUrl());
        final Codecs codecs = new Codecs(AvroSerdeConfig.registry(serde), true);
        final Map<String, Integer> seen = new HashMap<>();
        for (final ConsumerRecord<String, NodeCommand> r : CommittedRecords.readAll(stack, rig.topics().nodeCommands(),
                new StringDeserializer(), codecs.deserializer(NodeCommand.class))) {
            seen.merge(r.value().getCommandId(), 1, Integer::sum);
        }
        assertThat(seen).as("node commands read").isNotEmpty();
        return seen.values().stream().filter(n -> n > 1).count();
    }
}
