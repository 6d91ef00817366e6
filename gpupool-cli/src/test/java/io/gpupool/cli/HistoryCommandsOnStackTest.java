package io.gpupool.cli;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.audit.SyntheticHistory;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The recorded-history commands on a real scheduler run (both stages, exactly-once, on the shared
 * local broker): audit passes, from the whole journal and from a published engine snapshot, and so does
 * its reality check of the job events the test writes as a sink would; export, replay and explain --at
 * read the same history; then a forged decision, a forged node command, an injected journal entry and a
 * job event of a placement never commanded are each found and located.
 */
@ExtendWith(LocalStackExtension.class)
class HistoryCommandsOnStackTest {

    @TempDir
    Path dir;

    @Test
    void auditExportReplayAndExplainAtOnARecordedRun(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("hist");
        final TopicCatalog catalog = catalog(prefix);
        final TopicNames topics = TopicNames.of(catalog);
        final Codecs codecs = codecs(stack);
        final SchedulerOptions o = new SchedulerOptions(prefix + "-app", stack.bootstrapServers(),
                stack.requireRegistryUrl(), new Properties(), false, Files.createTempDirectory(dir, "state"), "", 0,
                Map.of(), 10, 5_000, catalog);
        final List<ConsumerRecord<String, PlacementDecision>> seen = new ArrayList<>();
        try (SchedulerApp app = SchedulerApp.start(o);
             KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(stack.producerConfig(),
                     new StringSerializer(), codecs.<SpecificRecord>serializer());
             KafkaConsumer<String, PlacementDecision> decisions = new KafkaConsumer<>(
                     stack.consumerConfig(stack.uniqueName("hist-d")), new StringDeserializer(),
                     codecs.deserializer(PlacementDecision.class))) {
            decisions.subscribe(List.of(topics.decisions()));
            assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
            for (int n = 0; n < 4; n++) {
                final NodeInventory node = SyntheticHistory.node("pool-h", "n" + n, "leaf-" + (n / 2), 8);
                producer.send(new ProducerRecord<>(topics.inventory(), "n" + n, node));
            }
            producer.flush();
            // the nodes first: a job that came before them would queue (or find a smaller pool), and the counts below
            // assume each job is decided once
            await("4 nodes in the engine").atMost(Duration.ofSeconds(60)).until(() -> app.engines().nodesKnown("pool-h") == 4);
            for (int i = 0; i < 12; i++) {
                producer.send(new ProducerRecord<>(topics.jobs(), "j" + i, submit("j" + i, i % 3 == 0 ? 2 : 1, 4)));
            }
            producer.flush();
            poll(decisions, seen, 12);
            // a job that has to wait for the whole pool
            producer.send(new ProducerRecord<>(topics.jobs(), "big", submit("big", 4, 8)));
            producer.flush();
            poll(decisions, seen, 13);
            // the sink's reports, as a sink writes them (naming command, placement and node): every part of the
            // placed jobs is applied and starts; the first three jobs complete (their first part reports it)
            final List<PlacementDecision> placed = seen.stream().map(ConsumerRecord::value)
                    .filter(d -> d.getOutcome() == DecisionOutcome.PLACED).toList();
            for (final PlacementDecision d : placed) {
                for (final NodeAssignment a : d.getAssignments()) {
                    producer.send(new ProducerRecord<>(topics.jobEvents(), d.getJobId(), event(d, a, JobEventType.APPLIED)));
                    producer.send(new ProducerRecord<>(topics.jobEvents(), d.getJobId(), event(d, a, JobEventType.STARTED)));
                }
            }
            for (final PlacementDecision d : placed.subList(0, 3)) {
                producer.send(new ProducerRecord<>(topics.jobEvents(), d.getJobId(),
                        event(d, d.getAssignments().get(0), JobEventType.COMPLETED)));
            }
            producer.flush();
            poll(decisions, seen, 16); // three RELEASED (and whatever the freed GPUs allowed)
        }
        final List<String> at = List.of("--bootstrap-server", stack.bootstrapServers(), "--registry-url",
                stack.requireRegistryUrl(), "--topic-name", "journal=" + topics.journal(), "--topic-name",
                "decisions=" + topics.decisions(), "--topic-name", "node-commands=" + topics.nodeCommands(),
                "--topic-name", "job-events=" + topics.jobEvents());

        final CliRun audit = run("audit", at);
        assertThat(audit.exitCode()).as(audit.out() + audit.err()).isZero();
        // what the sinks reported agrees with what they were told: the last line, after the replay's
        assertThat(lastLine(audit.out())).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
        final String last = summaryLine(audit.out());
        assertThat(last).matches("replayed=\\d+ matched=\\d+ divergent=0 violations=0 entries_per_s=\\d+"
                + " commands_matched=\\d+ commands_divergent=0");
        assertThat(Long.parseLong(last.replaceAll(".* matched=(\\d+).*", "$1"))).isGreaterThanOrEqualTo(16);
        // every placed job got an allocate command, every completed one a release
        assertThat(Long.parseLong(last.replaceAll(".*commands_matched=(\\d+).*", "$1"))).isGreaterThanOrEqualTo(12);

        // the local stack by its data directory (broker and registry from its stack.properties)
        final CliRun byDataDir = run("audit", List.of("--data-dir", stack.dataDir().toString(), "--topic-name",
                "journal=" + topics.journal(), "--topic-name", "decisions=" + topics.decisions(), "--topic-name",
                "node-commands=" + topics.nodeCommands(), "--topic-name", "job-events=" + topics.jobEvents()));
        assertThat(byDataDir.exitCode()).as(byDataDir.out() + byDataDir.err()).isZero();
        assertThat(withoutRate(summaryLine(byDataDir.out()))).isEqualTo(withoutRate(last));
        assertThat(lastLine(byDataDir.out())).isEqualTo(lastLine(audit.out()));
        // without the node-commands topic (another name): decisions only, and the report says why
        final CliRun noCommands = run("audit", List.of("--bootstrap-server", stack.bootstrapServers(), "--registry-url",
                stack.requireRegistryUrl(), "--topic-name", "journal=" + topics.journal(), "--topic-name",
                "decisions=" + topics.decisions(), "--topic-name", "node-commands=" + prefix + ".no-such-topic",
                "--topic-name", "job-events=" + topics.jobEvents()));
        assertThat(noCommands.exitCode()).as(noCommands.out() + noCommands.err()).isZero();
        assertThat(noCommands.out()).contains("node commands not compared: topic " + prefix + ".no-such-topic does not exist",
                "reality not checked: topic " + prefix + ".no-such-topic does not exist");
        assertThat(lastLine(noCommands.out())).matches("replayed=\\d+ matched=\\d+ divergent=0 violations=0 entries_per_s=\\d+");

        // from the submit of 'big' onwards: the engine starts from the newest snapshot before it
        final long bigOffset = seen.stream().filter(r -> r.key().equals("big")).findFirst().orElseThrow().value()
                .getCause().getOffset();
        final CliRun fromSnapshot = run("audit", at, "--from", Long.toString(bigOffset));
        assertThat(fromSnapshot.exitCode()).as(fromSnapshot.out() + fromSnapshot.err()).isZero();
        assertThat(fromSnapshot.out()).contains("pool pool-h: started from the engine snapshot at journal offset");
        assertThat(summaryLine(fromSnapshot.out())).contains("divergent=0 violations=0").doesNotContain("matched=0 ");
        assertThat(lastLine(fromSnapshot.out())).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
        final CliRun latest = run("audit", at, "--snapshot", "latest");
        assertThat(latest.exitCode()).as(latest.out() + latest.err()).isZero();
        assertThat(latest.out()).contains("pool pool-h: started from the engine snapshot at journal offset");
        // one pool, from its newest snapshot: the journal is read from the offset after it
        final CliRun onePool = run("audit", at, "--pool", "pool-h", "--snapshot", "latest");
        assertThat(onePool.exitCode()).as(onePool.out() + onePool.err()).isZero();
        assertThat(withoutRate(summaryLine(onePool.out()))).isEqualTo(withoutRate(summaryLine(latest.out())));
        assertThat(summaryLine(latest.out())).contains("commands_divergent=0");
        // from the first release: a snapshot taken after the jobs were placed, so their release commands (which
        // carry each job's name and tenant) come out right only with the job book read back from the topic
        final long releaseOffset = seen.stream().filter(r -> r.value().getOutcome() == DecisionOutcome.RELEASED)
                .mapToLong(r -> r.value().getCause().getOffset()).min().orElseThrow();
        final CliRun fromRelease = run("audit", at, "--from", Long.toString(releaseOffset));
        assertThat(fromRelease.exitCode()).as(fromRelease.out() + fromRelease.err()).isZero();
        assertThat(fromRelease.out()).contains("pool pool-h: started from the engine snapshot at journal offset");
        assertThat(summaryLine(fromRelease.out())).contains("divergent=0 violations=0").contains("commands_divergent=0")
                .doesNotContain("commands_matched=0");
        assertThat(run("audit", at, "--pool", "no-such-pool").out()).contains("replayed=0 matched=0");

        final CliRun export = run("export", at);
        assertThat(export.exitCode()).as(export.err()).isZero();
        final String[] rows = export.out().split("\n");
        assertThat(rows[0]).startsWith("job_id,pool,tenant,nodes,gpus_per_node,submit,start,end,");
        assertThat(rows).hasSize(14);
        assertThat(export.out()).containsPattern("(?m)^big,pool-h,team-a,4,8,[^,]+,,,,,QUEUED,");

        final Path png = dir.resolve("replay.png");
        final CliRun replay = run("replay", at, "--policy", "first-fit", "--chart", png.toString());
        assertThat(replay.exitCode()).as(replay.out() + replay.err()).isZero();
        assertThat(replay.out()).contains("recorded.queue_delay_mean_s=", "whatif.allocation_pct=", "chart=");
        assertThat(Files.size(png)).isGreaterThan(1_000);

        final Instant bigSubmitted = seen.stream().filter(r -> r.key().equals("big")).findFirst().orElseThrow().value()
                .getCause().getTimestamp();
        final CliRun explain = run("explain", List.of("big", "--at", bigSubmitted.plusMillis(1).toString()), at.toArray(new String[0]));
        assertThat(explain.exitCode()).as(explain.out() + explain.err()).isZero();
        assertThat(explain.out()).contains("job big in pool pool-h", "state: queued", "reason: ", "capacity it saw:");

        // tampering: a forged decision (same id, another message), then an entry injected into the journal
        final PlacementDecision victim = seen.stream().filter(r -> r.value().getOutcome() == DecisionOutcome.PLACED)
                .findFirst().orElseThrow().value();
        try (KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(stack.producerConfig(),
                new StringSerializer(), codecs.<SpecificRecord>serializer())) {
            producer.send(new ProducerRecord<>(topics.decisions(), victim.getJobId().toString(),
                    PlacementDecision.newBuilder(victim).setMessage("placed wherever").build())).get();
            final CliRun forged = run("audit", at);
            assertThat(forged.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED.code());
            assertThat(summaryLine(forged.out())).contains("divergent=1 ", "commands_divergent=0");
            assertThat(forged.out()).contains("first divergence: decision " + victim.getDecisionId(),
                    "journal " + victim.getCause().getPartition() + "@" + victim.getCause().getOffset(),
                    "differs in message: recorded=placed wherever");
            // a forged node command: the allocation of the first placed job moved to another GPU
            final NodeCommand allocate;
            try (KafkaConsumer<String, NodeCommand> nc = new KafkaConsumer<>(
                    stack.consumerConfig(stack.uniqueName("hist-c")), new StringDeserializer(),
                    codecs.deserializer(NodeCommand.class))) {
                nc.subscribe(List.of(topics.nodeCommands()));
                final List<NodeCommand> allocates = new ArrayList<>();
                await("an ALLOCATE node command").atMost(Duration.ofSeconds(60)).pollInSameThread().pollDelay(Duration.ZERO)
                        .until(() -> {
                            for (final ConsumerRecord<String, NodeCommand> r : nc.poll(Duration.ofMillis(200))) {
                                if (r.value().getType() == NodeCommandType.ALLOCATE) {
                                    allocates.add(r.value());
                                }
                            }
                            return !allocates.isEmpty();
                        });
                allocate = allocates.get(0);
            }
            final NodeCommand movedCommand = NodeCommand.newBuilder(allocate)
                    .setCpuMilli(allocate.getCpuMilli() + 1).build();
            producer.send(new ProducerRecord<>(topics.nodeCommands(), allocate.getNodeId().toString(), movedCommand)).get();
            final CliRun forgedCommand = run("audit", at);
            assertThat(forgedCommand.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED.code());
            assertThat(forgedCommand.out()).contains("first node command divergence: command " + allocate.getCommandId()
                    + " (ALLOCATE to node " + allocate.getNodeId() + ")", "differs in cpuMilli: recorded="
                    + movedCommand.getCpuMilli());
            assertThat(summaryLine(forgedCommand.out())).contains("commands_divergent=1");
            final JournalEntry injected = JournalEntry.newBuilder().setPool("pool-h").setTimestamp(Instant.now())
                    .setSource(null).setPayload(JobCommand.newBuilder().setJobId("ghost").setCommandId("ghost-1")
                            .setCommand(JobSubmit.newBuilder().setRequest(request(1, 1)).build()).build()).build();
            final long offset = producer.send(new ProducerRecord<>(topics.journal(), "pool-h", injected)).get().offset();
            final CliRun ghost = run("audit", at, "--from", Long.toString(offset));
            assertThat(ghost.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED.code());
            assertThat(ghost.out()).contains("caused by journal " + victim.getCause().getPartition() + "@" + offset,
                    "recorded:   (none)", "ghost");
            // a sink reports a part of a placement the scheduler never commanded: reality finds the orphan
            final NodeAssignment where = victim.getAssignments().get(0);
            producer.send(new ProducerRecord<>(topics.jobEvents(), victim.getJobId(), JobEvent.newBuilder()
                    .setJobId(victim.getJobId()).setEventId("ghost-part/STARTED").setType(JobEventType.STARTED)
                    .setPlacementId("ghost-placement").setNodeId(where.getNodeId()).setOccurredAt(Instant.now())
                    .build())).get();
            final CliRun orphan = run("audit", at);
            assertThat(orphan.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED.code());
            assertThat(lastLine(orphan.out())).contains("orphan_parts=1");
            assertThat(orphan.out()).contains("orphan part: job " + victim.getJobId() + " placement ghost-placement on node "
                    + where.getNodeId(), "no ALLOCATE of this placement was sent to this node");
        }
    }

    static CliRun run(final String command, final List<String> first, final String... rest) {
        final List<String> args = new ArrayList<>();
        args.add(command);
        args.addAll(first);
        args.addAll(List.of(rest));
        return CliRun.of(args.toArray(new String[0]));
    }

    private static String withoutRate(final String line) {
        return line.replaceAll("entries_per_s=\\d+", "");
    }

    static String lastLine(final String out) {
        final String[] lines = out.strip().split("\n");
        return lines[lines.length - 1];
    }

    /** The replay's name=value line: second to last, before the reality check's. */
    /** Every gpupool topic under {@code prefix}: the test's own. */
    static TopicCatalog catalog(final String prefix) {
        final Map<String, String> names = new HashMap<>();
        for (final Topic t : Topic.values()) {
            names.put(TopicCatalog.PREFIX + t.id() + ".name", prefix + "." + t.id());
        }
        return TopicCatalog.defaults().withOverrides(names);
    }

    static Codecs codecs(final TestStack stack) {
        final Map<String, Object> serde = new HashMap<>();
        serde.put(RegistryClientConfig.URL, stack.requireRegistryUrl());
        return new Codecs(AvroSerdeConfig.registry(serde), true);
    }

    static String summaryLine(final String out) {
        final String[] lines = out.strip().split("\n");
        return lines[lines.length - 2];
    }

    static void poll(final KafkaConsumer<String, PlacementDecision> c,
                             final List<ConsumerRecord<String, PlacementDecision>> seen, final int atLeast) {
        await(atLeast + " decisions").atMost(Duration.ofSeconds(60)).pollInSameThread().pollDelay(Duration.ZERO)
                .until(() -> {
                    c.poll(Duration.ofMillis(200)).forEach(seen::add);
                    return seen.size() >= atLeast;
                });
    }

    static JobRequest request(final int nodes, final int gpus) {
        return JobRequest.newBuilder().setName("train").setTenant("team-a").setPool("pool-h").setNodes(nodes)
                .setGpusPerNode(gpus).build();
    }

    static JobCommand submit(final String id, final int nodes, final int gpus) {
        return JobCommand.newBuilder().setJobId(id).setCommandId("submit-" + id)
                .setCommand(JobSubmit.newBuilder().setRequest(request(nodes, gpus)).build()).build();
    }

    /** A sink's event about one part of a placement: it names the ALLOCATE (decision id / node) and the placement. */
    private static JobEvent event(final PlacementDecision d, final NodeAssignment a, final JobEventType type) {
        final String command = d.getDecisionId() + "/" + a.getNodeId();
        return JobEvent.newBuilder().setJobId(d.getJobId()).setEventId(command + "/" + type).setType(type)
                .setDecisionId(d.getDecisionId()).setCommandId(command).setPlacementId(d.getDecisionId())
                .setNodeId(a.getNodeId()).setGpuUuids(a.getGpus().stream().map(g -> g.getUuid()).toList())
                .setOccurredAt(Instant.now()).build();
    }
}
