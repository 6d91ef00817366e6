package io.gpupool.sink;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.registry.SchemaRegistry;
import io.gpupool.serde.AllocationBomb;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.WireFormat;
import io.gpupool.sink.apply.SimulatedApplier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

import static io.gpupool.sink.SinkTestKit.allocate;
import static io.gpupool.sink.SinkTestKit.count;
import static io.gpupool.sink.SinkTestKit.has;
import static io.gpupool.sink.SinkTestKit.stop;
import static org.assertj.core.api.Assertions.assertThat;

/** The sink on a real broker with the simulated applier: commands in through the serde, job events out. */
@ExtendWith(LocalStackExtension.class)
@Execution(ExecutionMode.CONCURRENT)
class SinkRunnerBrokerTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path state;

    @Test
    void commandsBecomeJobEventsAndCapacityIsReleased(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 3)) {
            final List<Set<String>> busyHistory = new CopyOnWriteArrayList<>();
            try (SinkRunner sink = SinkRunner.create(kit.config(state), new SimulatedApplier(10, Duration.ofMinutes(10)))) {
                sink.addListener(new SinkListener() {
                    @Override
                    public void busyGpusChanged(final Set<String> gpuUuids) {
                        busyHistory.add(gpuUuids);
                    }
                }).start();
                // the long job first, and started before the short one is sent: the two then overlap whatever the
                // order the partitions are read in, so the busy set holds all three GPUs at some point
                kit.send(allocate("long", "n2", 3_600_000, List.of(), 3));   // an hour: runs until evicted
                kit.eventsUntil(ev -> has(ev, "long", "STARTED"), WAIT);
                kit.send(allocate("short", "n1", 2_000, List.of(), 0, 1));   // 200 ms at scale 10
                kit.eventsUntil(ev -> has(ev, "short", "COMPLETED"), WAIT);
                assertThat(sink.busyGpuUuids()).containsExactly("GPU-n2-3");

                kit.send(stop(NodeCommandType.EVICT, "long", "n2", "preempted by job vip"));
                final List<JobEvent> ev = kit.eventsUntil(e -> has(e, "long", "EVICTED"), WAIT);

                assertThat(ev.stream().filter(e -> e.getJobId().equals("short")).map(e -> e.getType().name()))
                        .containsExactly("APPLIED", "STARTED", "COMPLETED");
                final JobEvent completed = ev.stream().filter(e -> has(List.of(e), "short", "COMPLETED")).findFirst().orElseThrow();
                assertThat(completed.getExitCode()).isZero();
                assertThat(completed.getDecisionId()).isEqualTo("place-short");
                assertThat(completed.getNodeId()).isEqualTo("n1");
                assertThat(completed.getGpuUuids()).containsExactly("GPU-n1-0", "GPU-n1-1");
                assertThat(ev).as("every event names its placement")
                        .allSatisfy(e -> assertThat(e.getPlacementId()).isEqualTo("place-" + e.getJobId()));
                final JobEvent evicted = ev.stream().filter(e -> has(List.of(e), "long", "EVICTED")).findFirst().orElseThrow();
                assertThat(evicted.getReason()).contains("preempted by job vip");
                assertThat(evicted.getDecisionId()).isEqualTo("evict-long");
                assertThat(count(ev, "long", "COMPLETED")).isZero();
                assertThat(sink.running()).isEmpty();
                assertThat(busyHistory).contains(Set.of("GPU-n1-0", "GPU-n1-1", "GPU-n2-3"));
                assertThat(busyHistory.get(busyHistory.size() - 1)).isEmpty();
                assertThat(sink.metrics().count("gpupool.sink.commands.applied", "ALLOCATE")).isEqualTo(2);
                assertThat(sink.metrics().count("gpupool.sink.commands.applied", "EVICT")).isEqualTo(1);
                assertThat(sink.metrics().registry().scrape()).contains("gpupool_sink_running_jobs",
                        "gpupool_sink_apply_latency_seconds");
            }
        }
    }

    @Test
    void aCommandDeliveredTwiceHasOneEffect(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            try (SinkRunner sink = SinkRunner.create(kit.config(state), new SimulatedApplier(1, Duration.ofMinutes(10)))
                    .start()) {
                kit.send(allocate("twice", "n1", 3_600_000, List.of(), 0));
                kit.send(allocate("twice", "n1", 3_600_000, List.of(), 0));
                kit.send(allocate("after", "n1", 3_600_000, List.of(), 1));
                final List<JobEvent> ev = kit.eventsUntil(e -> has(e, "after", "STARTED"), WAIT);
                assertThat(count(ev, "twice", "APPLIED")).isEqualTo(1);
                assertThat(count(ev, "twice", "STARTED")).isEqualTo(1);
                assertThat(sink.metrics().count("gpupool.sink.commands.duplicate", "ALLOCATE")).isEqualTo(1);
                assertThat(sink.running()).hasSize(2);
            }
        }
    }

    @Test
    void malformedRecordsGoToTheDlqWhileGoodCommandsFlow(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            try (SinkRunner sink = SinkRunner.create(kit.config(state), new SimulatedApplier(10, Duration.ofMinutes(10)))
                    .start()) {
                kit.send(allocate("before", "n1", 1_000, List.of(), 0));
                kit.sendRaw("n1", "{\"not\":\"avro\"}".getBytes(StandardCharsets.UTF_8));
                kit.sendRaw("n1", new byte[] {0, 0, 0, 0, 1, (byte) 0xff, (byte) 0xff}); // right magic, garbage body
                // Decodes, but no sink can apply it (a newer writer's command type reads as UNKNOWN).
                kit.send(NodeCommand.newBuilder(allocate("odd", "n1", 1_000, List.of(), 2))
                        .setType(NodeCommandType.UNKNOWN).build());
                kit.send(allocate("after", "n1", 1_000, List.of(), 1));
                final List<JobEvent> ev = kit.eventsUntil(e -> has(e, "before", "COMPLETED") && has(e, "after", "COMPLETED"), WAIT);
                assertThat(ev).hasSize(6);

                final List<ConsumerRecord<byte[], byte[]>> dead = kit.deadLetters(3, WAIT);
                assertThat(dead).hasSize(3);
                final ConsumerRecord<byte[], byte[]> first = dead.get(0);
                assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("{\"not\":\"avro\"}");
                assertThat(new String(first.key(), StandardCharsets.UTF_8)).isEqualTo("n1");
                assertThat(header(first, DeadLetterQueue.SOURCE_TOPIC)).isEqualTo(kit.commands);
                assertThat(header(first, DeadLetterQueue.SOURCE_PARTITION)).isEqualTo("0");
                assertThat(header(first, DeadLetterQueue.SOURCE_OFFSET)).isEqualTo("1");
                assertThat(header(first, DeadLetterQueue.ERROR_CLASS)).isEqualTo("io.gpupool.serde.RecordDecodeException");
                assertThat(header(first, DeadLetterQueue.ERROR_MESSAGE)).contains("WRONG_MAGIC_BYTE");
                assertThat(header(dead.get(1), DeadLetterQueue.SOURCE_OFFSET)).isEqualTo("2");
                assertThat(header(dead.get(2), DeadLetterQueue.ERROR_CLASS)).endsWith("InvalidCommandException");
                assertThat(header(dead.get(2), DeadLetterQueue.ERROR_MESSAGE)).contains("UNKNOWN");
                assertThat(has(ev, "odd", "APPLIED")).isFalse();
                assertThat(sink.metrics().registry().scrape()).contains("gpupool_sink_commands_dead_lettered_total");
            }
        }
    }

    @Test
    void anAllocationBombIsDeadLetteredAndTheSinkGoesOn(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            // the heap of this JVM (the surefire argLine) cannot hold what the bomb claims
            assertThat(Runtime.getRuntime().maxMemory()).isLessThan(4 * AllocationBomb.CLAIM);
            final SchemaRegistry registry = AvroSerdeConfig.registry(Map.of(RegistryClientConfig.URL,
                    stack.requireRegistryUrl()));
            final int id = registry.register(WireFormat.subject(kit.commands, false), NodeCommand.getClassSchema());
            try (SinkRunner sink = SinkRunner.create(kit.config(state), new SimulatedApplier(10, Duration.ofMinutes(10)))
                    .start()) {
                kit.sendRaw("n1", AllocationBomb.record(id, NodeCommand.getClassSchema(), "gpus"));
                kit.send(allocate("after", "n1", 1_000, List.of(), 1));
                kit.eventsUntil(e -> has(e, "after", "COMPLETED"), WAIT);
                final List<ConsumerRecord<byte[], byte[]>> dead = kit.deadLetters(1, WAIT);
                assertThat(dead).hasSize(1);
                assertThat(header(dead.get(0), DeadLetterQueue.SOURCE_OFFSET)).isEqualTo("0");
                assertThat(header(dead.get(0), DeadLetterQueue.ERROR_MESSAGE)).contains("array of 2000000000 items in a");
                assertThat(sink.failure()).isEmpty();
            }
        }
    }

    @Test
    void aNodeAgentAppliesOnlyItsOwnNodesCommands(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 4)) {
            // Two nodes that hash to the same partition, and one that does not.
            final String mine = "node-a";
            String neighbour = null;
            String elsewhere = null;
            for (int i = 0; neighbour == null || elsewhere == null; i++) {
                final String n = "node-" + i;
                if (n.equals(mine)) {
                    continue;
                }
                if (SinkRunner.partitionOf(n, 4) == SinkRunner.partitionOf(mine, 4)) {
                    neighbour = neighbour == null ? n : neighbour;
                } else {
                    elsewhere = elsewhere == null ? n : elsewhere;
                }
            }
            try (SinkRunner agent = SinkRunner.create(kit.config(state).forNode(mine),
                    new SimulatedApplier(1, Duration.ofMinutes(10))).start()) {
                kit.send(allocate("j-other", neighbour, 3_600_000, List.of(), 0));
                kit.send(allocate("j-far", elsewhere, 3_600_000, List.of(), 0));
                kit.send(allocate("j-mine", mine, 3_600_000, List.of(), 0));
                kit.eventsUntil(e -> has(e, "j-mine", "STARTED"), WAIT);
                kit.eventsWhile(ev -> ev.stream().allMatch(e -> e.getJobId().equals("j-mine")), Duration.ofSeconds(2));
                assertThat(agent.running().keySet()).extracting(k -> k.nodeId()).containsExactly(mine);
            }
        }
    }

    @Test
    void aRegistryOutageHoldsCommandsBackInsteadOfDeadLetteringThem(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            kit.send(allocate("waits", "n1", 1_000, List.of(), 0));
            final SinkConfig good = kit.config(state);
            final SinkConfig unreachable = new SinkConfig(good.bootstrapServers(), good.clientProperties(),
                    "http://127.0.0.1:1", good.topics(), good.groupId(), good.node(), good.ownPartitionOnly(),
                    good.stateDir(), good.retry(), good.pollTimeout(), good.stopWait(), good.stopThreads());
            final SinkRunner outage = SinkRunner.create(unreachable, new SimulatedApplier(10, Duration.ofMinutes(10))).start();
            try (outage) {
                kit.eventsWhile(List::isEmpty, Duration.ofSeconds(4));
                assertThat(outage.isRunning()).isTrue();
                assertThat(outage.metrics().registry().scrape()).doesNotContain("dead_lettered_total{");
            }
            outage.awaitStopped(); // returns once closed: the outage did not leave the consumer thread hanging
            assertThat(outage.isRunning()).isFalse();
            assertThat(outage.failure()).isEmpty();
            // Nothing was committed or dead-lettered: with the registry back, the same group applies it.
            try (SinkRunner sink = SinkRunner.create(good, new SimulatedApplier(10, Duration.ofMinutes(10))).start()) {
                kit.eventsUntil(e -> has(e, "waits", "COMPLETED"), WAIT);
                assertThat(sink.metrics().count("gpupool.sink.commands.applied", "ALLOCATE")).isEqualTo(1);
            }
            kit.noDeadLettersDuring(Duration.ofSeconds(2));
        }
    }

    private static String header(final ConsumerRecord<byte[], byte[]> r, final String name) {
        final Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
