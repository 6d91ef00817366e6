package io.gpupool.cli.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.Gpupool;
import io.gpupool.cli.up.PipelineOptions;
import io.gpupool.cli.up.PipelineParts;
import io.gpupool.cli.up.PipelineServices;
import io.gpupool.cli.up.SchedulerProbe;
import io.gpupool.cli.up.SchedulerService;
import io.gpupool.cli.up.ServiceGroup;
import io.gpupool.cli.up.TopicsService;
import io.gpupool.cli.up.UpContext;
import io.gpupool.cli.up.UpService;
import io.gpupool.cli.workload.JobCommandProducer;
import io.gpupool.cli.workload.JobCommands;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.query.QueryEndpoint;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerde;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.zip.CRC32;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Producers the project does not write: a librdkafka-style client (CRC32 partitioner, null keys,
 * keys that are not the job id), a client whose clock runs five minutes fast, and then a mixed run
 * (gangs, shares, preemption, a cancel, an Xid) that {@code gpupool audit} must find nothing wrong
 * with. The pipeline is wired by the services {@code gpupool up} runs (topics, the scheduler, the
 * simulated fleet of 8 nodes x 8 GPUs, the simulated sink), on the shared local stack, with topics of
 * their own. The scheduler runs as {@code up}'s does, except under an application id of its own: its
 * repartition and changelog topics are named after it, and another test class of this JVM running
 * {@code up}'s scheduler ({@code gpupool-scheduler}) on the same broker would otherwise restore this
 * one's stores. Simulated jobs run in real time (time scale 1): their runtimes are test seconds.
 * The methods run in order: the fault of the last one would show in the first two's checks.
 */
@ExtendWith(LocalStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Execution(ExecutionMode.CONCURRENT)
class AnyProducerOnStackTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int GPUS = 8 * 8;
    /** Reasons of decisions that say capacity went bad (evictions, and the queue waiting for healthy GPUs). */
    private static final List<String> HEALTH_REASONS = List.of("HARDWARE_FAILURE", "UNHEALTHY_GPUS", "LINK_FAILURE",
            "NODE_REMOVED");

    private TestStack stack;
    private TopicCatalog catalog;
    private String applicationId;
    private final PipelineParts parts = new PipelineParts();
    private ServiceGroup group;
    private JobCommandProducer jobs;
    private TopicLog<PlacementDecision> decisions;
    private TopicLog<JobEvent> events;
    private SchedulerProbe scheduler;
    private Properties client;

    @BeforeAll
    void startThePipeline(final TestStack stack, @TempDir final Path dir) throws Exception {
        this.stack = stack;
        final String prefix = stack.uniqueName("anyproducer");
        applicationId = prefix + "-scheduler";
        final Map<String, String> names = OnStackPipeline.topicNames(prefix);
        catalog = TopicCatalog.defaults().withOverrides(names);
        final PipelineOptions options = OnStackPipeline.smallFleet(11);
        final Path dataDir = dir.resolve("stack");
        final UpContext context = OnStackPipeline.context(stack, dataDir, names);
        final List<UpService> services = new ArrayList<>(List.of(new TopicsService(), new SchedulerService(applicationId)));
        services.addAll(PipelineServices.of(options, parts, new PrintWriter(new StringWriter(), true)));
        group = new ServiceGroup(services);
        group.start(context);
        scheduler = new SchedulerProbe(QueryEndpoint.find(dataDir).orElseThrow());
        client = new Properties();
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        jobs = new JobCommandProducer(client, stack.requireRegistryUrl(), catalog.name(Topic.JOBS));
        decisions = new TopicLog<>(stack, catalog.name(Topic.DECISIONS), PlacementDecision.class);
        events = new TopicLog<>(stack, catalog.name(Topic.JOB_EVENTS), JobEvent.class);
    }

    @AfterAll
    void stopThePipeline() throws Exception {
        for (final AutoCloseable c : new AutoCloseable[] {events, decisions, jobs, group}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    @Order(1)
    void jobsFromACrc32PartitioningClientAndNullKeysAllFinishAndFreeTheirGpus() throws Exception {
        final String topic = catalog.name(Topic.JOBS);
        final Properties p = stack.producerConfig();
        p.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, Crc32Partitioner.class.getName());
        p.put(Crc32Partitioner.SEED, "20240917");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        final Serializer<JobCommand> avro = SpecificAvroSerde.forValues(JobCommand.class,
                AvroSerdeConfig.forClient(client, stack.requireRegistryUrl())).serializer();
        final Map<String, RecordMetadata> written = new LinkedHashMap<>();
        final Map<String, byte[]> keys = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> librdkafkaLike = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < 40; i++) {
                final String id = String.format("crc-%02d", i);
                final JobRequest.Builder r = request("crc", "batch").setSimulatedRuntimeMillis(2_000L + 100L * (i % 7));
                switch (i % 5) {
                    case 0, 1 -> r.setGpusPerNode(1);
                    case 2 -> r.setGpuMilli(500).setGpuMemoryMiB(10_000L);
                    case 3 -> r.setGpusPerNode(8);
                    default -> r.setNodes(2).setGpusPerNode(8);
                }
                // half keyed by the job id, a quarter with no key, a quarter keyed by something else (the tenant)
                final byte[] key = switch (i % 4) {
                    case 0, 1 -> id.getBytes(StandardCharsets.UTF_8);
                    case 2 -> null;
                    default -> ("team-" + (i % 3)).getBytes(StandardCharsets.UTF_8);
                };
                keys.put(id, key);
                final byte[] value = avro.serialize(topic, JobCommands.submit(id, r.build(), "librdkafka-like"));
                written.put(id, librdkafkaLike.send(new ProducerRecord<>(topic, key, value)).get());
            }
        }
        final int partitions = partitionCount(topic);
        assertThat(partitions).as("partitions of %s", topic).isGreaterThan(1);
        int moved = 0;
        int movedWithoutKey = 0;
        for (final Map.Entry<String, RecordMetadata> w : written.entrySet()) {
            final byte[] key = keys.get(w.getKey());
            if (key != null) {
                assertThat(w.getValue().partition()).as("%s went where librdkafka's consistent_random puts it", w.getKey())
                        .isEqualTo((int) (Crc32Partitioner.crc32(key) % partitions));
            }
            // where the project's own producer (Java client, key = job id, murmur2) would have put it
            final int javaChoice = Utils.toPositive(Utils.murmur2(w.getKey().getBytes(StandardCharsets.UTF_8))) % partitions;
            if (w.getValue().partition() != javaChoice) {
                moved++;
                movedWithoutKey += key == null ? 1 : 0;
            }
        }
        assertThat(moved).as("submits on another partition than murmur2(job id) picks: %s", written).isGreaterThanOrEqualTo(8);
        assertThat(movedWithoutKey).as("null-key submits on another partition than murmur2(job id) picks")
                .isGreaterThanOrEqualTo(2);

        final Map<String, PlacementDecision> released = awaitEach(written.keySet(), DecisionOutcome.RELEASED, WAIT);
        assertThat(released).allSatisfy((job, d) ->
                assertThat(d.getReasonCode()).as("why %s was released: %s", job, d).isEqualTo("COMPLETED"));
        assertThat(decisions.all().stream().filter(d -> d.getJobId().startsWith("crc-")
                && d.getOutcome() == DecisionOutcome.PLACED && d.getAssignments().size() == 2)).as("gangs placed").isNotEmpty();
        awaitPoolIdle();
        assertThat(decisions.all()).as("nothing evicted").noneMatch(d -> d.getOutcome() == DecisionOutcome.EVICTED);
        assertThat(deadLetters()).as("records on %s", catalog.name(Topic.DLQ)).isZero();
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    @Order(2)
    void aClientWithAClockFiveMinutesFastEvictsNothing() throws Exception {
        final String topic = catalog.name(Topic.JOBS);
        final Map<String, Long> stampedAt = new LinkedHashMap<>();
        final Map<String, RecordMetadata> written = new LinkedHashMap<>();
        long lastSent = 0;
        try (KafkaProducer<String, JobCommand> fast = new KafkaProducer<>(stack.producerConfig(), new StringSerializer(),
                SpecificAvroSerde.forValues(JobCommand.class, AvroSerdeConfig.forClient(client, stack.requireRegistryUrl()))
                        .serializer())) {
            for (int i = 0; i < 20; i++) {
                final String id = String.format("fast-%02d", i);
                final JobRequest.Builder r = request("fast", "batch").setSimulatedRuntimeMillis(3_000L);
                switch (i % 4) {
                    case 0, 1 -> r.setGpusPerNode(1);
                    case 2 -> r.setGpuMilli(500).setGpuMemoryMiB(10_000L);
                    default -> r.setGpusPerNode(8);
                }
                final long fiveMinutesFast = System.currentTimeMillis() + Duration.ofMinutes(5).toMillis();
                stampedAt.put(id, fiveMinutesFast);
                written.put(id, fast.send(new ProducerRecord<>(topic, null, fiveMinutesFast, id,
                        JobCommands.submit(id, r.build(), "fast-clock"))).get());
                lastSent = System.currentTimeMillis();
                Thread.sleep(150); // pacing, not waiting: the submits are spread over the fleet's telemetry
            }
        }
        // every job runs to its end; a pool clock moved 5 min ahead would make every node's telemetry (120 s
        // timeout) stale at its next tick (every 5 s) and evict the running jobs: stop at the first such decision
        final Predicate<PlacementDecision> healthTrouble = d -> d.getOutcome() == DecisionOutcome.EVICTED
                || HEALTH_REASONS.contains(String.valueOf(d.getReasonCode()));
        Awaitility.await("every fast-clock job released").atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> {
            final List<PlacementDecision> all = decisions.all();
            assertThat(all).as("no eviction, no health reason").noneMatch(healthTrouble); // fails the wait at once
            final Set<String> released = all.stream().filter(d -> d.getOutcome() == DecisionOutcome.RELEASED)
                    .map(PlacementDecision::getJobId).collect(Collectors.toSet());
            return released.containsAll(written.keySet());
        });
        final Map<String, PlacementDecision> released = awaitEach(written.keySet(), DecisionOutcome.RELEASED, Duration.ofSeconds(1));
        assertThat(released).allSatisfy((job, d) ->
                assertThat(d.getReasonCode()).as("why %s was released: %s", job, d).isEqualTo("COMPLETED"));
        // and three ticks after the last fast record, with the fleet reporting all the while
        // time itself is the condition here: the pool's clock must tick on while the fleet reports
        final long ticksLater = lastSent + 3 * SchedulerOptions.DEFAULT_TICK_INTERVAL_MS + 1_000;
        Awaitility.await("three clock ticks").atMost(WAIT).pollInterval(Duration.ofMillis(250))
                .until(() -> System.currentTimeMillis() >= ticksLater);
        awaitPoolIdle();
        final JsonNode pool = scheduler.pool(PipelineParts.POOL).orElseThrow();
        assertThat(pool.path("gpus").path("unhealthy").asLong()).as("no GPU went stale: %s", pool).isZero();
        assertThat(decisions.all()).as("no eviction, no health reason").noneMatch(healthTrouble);
        assertThat(events.all()).as("the sink stopped nothing").noneMatch(e -> e.getType() == JobEventType.EVICTED
                || e.getType() == JobEventType.FAILED);
        assertThat(deadLetters()).as("records on %s", catalog.name(Topic.DLQ)).isZero();

        // the journal: pool time at most the scheduler's clock (+5 s), the client's own time kept as evidence
        try (TopicLog<JournalEntry> journal = new TopicLog<>(stack, catalog.name(Topic.JOURNAL), JournalEntry.class)) {
            for (final String id : written.keySet()) {
                final JournalEntry e = journal.await(j -> j.getPayload() instanceof JobCommand c && c.getJobId().equals(id),
                        WAIT, "journal entry of the submit of " + id);
                final long readAt = System.currentTimeMillis();
                assertThat(e.getTimestamp().toEpochMilli()).as("pool time of %s's submit: %s", id, e)
                        .isLessThanOrEqualTo(readAt + 10_000);
                assertThat(e.getSource()).isNotNull();
                assertThat(e.getSource().getTimestamp().toEpochMilli()).as("its own time kept as evidence: %s", e)
                        .isEqualTo(stampedAt.get(id));
                assertThat(e.getSource().getTopic() + "/" + e.getSource().getPartition() + "@" + e.getSource().getOffset())
                        .as("the position it was written to").isEqualTo(topic + "/" + written.get(id).partition() + "@"
                                + written.get(id).offset());
            }
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    @Order(3)
    void afterPreemptionGangsSharesAndFaultsTheAuditFindsNothing() throws Exception {
        final List<String> all = new ArrayList<>();
        // best-effort, preemptible work filling the pool (62 of 64 GPUs), and a little batch work that is not
        for (int i = 0; i < 4; i++) {
            // mix-be-node-1 runs until it is cancelled
            all.add(submit("mix-be-node-" + i, request("fill", "best-effort").setPreemptible(true).setGpusPerNode(8)
                    .setSimulatedRuntimeMillis(i == 1 ? 600_000L : 15_000L)));
        }
        all.add(submit("mix-be-gang", request("fill", "best-effort").setPreemptible(true).setNodes(2).setGpusPerNode(8)
                .setSimulatedRuntimeMillis(15_000L)));
        for (int i = 0; i < 8; i++) {
            all.add(submit("mix-be-share-" + i, request("fill", "best-effort").setPreemptible(true).setGpuMilli(500)
                    .setGpuMemoryMiB(10_000L).setSimulatedRuntimeMillis(15_000L)));
        }
        for (int i = 0; i < 6; i++) {
            all.add(submit("mix-be-one-" + i, request("fill", "best-effort").setPreemptible(true).setGpusPerNode(1)
                    .setSimulatedRuntimeMillis(15_000L)));
        }
        for (int i = 0; i < 4; i++) {
            all.add(submit("mix-batch-" + i, request("steady", "batch").setGpusPerNode(1).setSimulatedRuntimeMillis(12_000L)));
        }
        awaitEach(all, DecisionOutcome.PLACED, WAIT);

        // an Xid on a GPU a running job holds: the job is evicted and placed again on healthy GPUs
        final PlacementDecision xidVictim = awaitDecision("mix-batch-0", DecisionOutcome.PLACED);
        final NodeAssignment where = xidVictim.getAssignments().get(0);
        events.await(e -> e.getJobId().equals("mix-batch-0") && e.getType() == JobEventType.STARTED
                && xidVictim.getDecisionId().equals(e.getPlacementId()), WAIT, "STARTED of mix-batch-0");
        parts.fleet().orElseThrow().faults().xid(where.getNodeId(), where.getGpus().get(0).getIndex(), 79);

        // production work: a gang, whole nodes and shares, which only preemption can make room for
        final List<String> production = new ArrayList<>();
        production.add(submit("mix-prod-gang", request("urgent", "production").setNodes(2).setGpusPerNode(8)
                .setSimulatedRuntimeMillis(5_000L)));
        for (int i = 0; i < 2; i++) {
            production.add(submit("mix-prod-node-" + i, request("urgent", "production").setGpusPerNode(8)
                    .setSimulatedRuntimeMillis(5_000L)));
        }
        for (int i = 0; i < 4; i++) {
            production.add(submit("mix-prod-share-" + i, request("urgent", "production").setGpuMilli(500)
                    .setGpuMemoryMiB(10_000L).setSimulatedRuntimeMillis(5_000L)));
        }
        all.addAll(production);
        final PlacementDecision evicted = awaitDecision("mix-batch-0", DecisionOutcome.EVICTED);
        assertThat(evicted.getReasonCode()).as("%s", evicted).isEqualTo("HARDWARE_FAILURE");
        awaitEach(production, DecisionOutcome.PLACED, WAIT);

        // and a user cancels a best-effort job, running or requeued by now
        jobs.sendAndWait(JobCommands.cancel("mix-be-node-1", "not needed any more", "e2e"));
        assertThat(awaitDecision("mix-be-node-1", DecisionOutcome.CANCELLED).getMessage()).contains("not needed any more");

        // every job ends: released when it completed, or cancelled; the capacity is all back
        final Map<String, PlacementDecision> ended = awaitEach(all, d -> d.getOutcome() == DecisionOutcome.RELEASED
                || d.getOutcome() == DecisionOutcome.CANCELLED, "its end (RELEASED or CANCELLED)", Duration.ofSeconds(120));
        assertThat(ended.entrySet().stream().filter(e -> e.getValue().getOutcome() == DecisionOutcome.CANCELLED)
                .map(Map.Entry::getKey)).as("cancelled jobs").containsExactly("mix-be-node-1");
        awaitPoolIdle();

        final List<PlacementDecision> recorded = decisions.all();
        final List<PlacementDecision> preempted = recorded.stream().filter(d -> d.getOutcome() == DecisionOutcome.EVICTED
                && "PREEMPTED".equals(String.valueOf(d.getReasonCode()))).toList();
        // only best-effort (preemptible) work is preempted, by work of a higher class: production, or batch
        // (the job the Xid evicted, placed again)
        assertThat(preempted).as("evictions by preemption").isNotEmpty().allSatisfy(d -> {
            assertThat(d.getJobId()).startsWith("mix-be-");
            assertThat(String.valueOf(d.getPreemptedBy())).matches("mix-(prod|batch)-.*");
        }).anySatisfy(d -> assertThat(String.valueOf(d.getPreemptedBy())).startsWith("mix-prod-"));
        assertThat(recorded).as("a gang placed").anyMatch(d -> d.getJobId().startsWith("mix-")
                && d.getOutcome() == DecisionOutcome.PLACED && d.getAssignments().size() == 2);

        // every node command the scheduler sent was applied by the sink: the audit can count all of them
        try (TopicLog<NodeCommand> commands = new TopicLog<>(stack, catalog.name(Topic.NODE_COMMANDS), NodeCommand.class)) {
            awaitEveryCommandApplied(commands);
        }
        awaitPlacerCaughtUp();

        final Cli audit = audit("--sink-grace", "0s");
        System.out.println("gpupool audit:\n" + audit.out + audit.err); // the report, in the test's output file
        final String[] lines = audit.out.strip().split("\n");
        assertThat(lines.length).as(audit.out + audit.err).isGreaterThanOrEqualTo(3);
        assertThat(lines[lines.length - 1]).as(audit.out + audit.err)
                .isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
        assertThat(lines[lines.length - 2]).as(audit.out).contains(" divergent=0 violations=0 ")
                .contains("commands_divergent=0").doesNotContain("matched=0 ").doesNotContain("commands_matched=0");
        assertThat(audit.out).as(audit.out).contains("dead-lettered records on " + catalog.name(Topic.DLQ) + ": 0\n");
        assertThat(audit.code).as(audit.out + audit.err).isZero();
    }

    // ---- waiting

    /** Waits until every job has a decision of that outcome (one deadline for all); the first of each. */
    private Map<String, PlacementDecision> awaitEach(final Iterable<String> jobIds, final DecisionOutcome outcome,
                                                     final Duration timeout) throws InterruptedException {
        return awaitEach(jobIds, d -> d.getOutcome() == outcome, outcome.name(), timeout);
    }

    private Map<String, PlacementDecision> awaitEach(final Iterable<String> jobIds, final Predicate<PlacementDecision> match,
                                                     final String what, final Duration timeout) throws InterruptedException {
        final List<String> ids = new ArrayList<>();
        jobIds.forEach(ids::add);
        final Map<String, PlacementDecision> found = new LinkedHashMap<>();
        try {
            Awaitility.await(what + " of every job").atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
                final List<PlacementDecision> all = decisions.all();
                for (final String job : ids) {
                    if (!found.containsKey(job)) {
                        all.stream().filter(d -> d.getJobId().equals(job) && match.test(d)).findFirst()
                                .ifPresent(d -> found.put(job, d));
                    }
                }
                return found.size() == ids.size();
            });
        } catch (final ConditionTimeoutException e) {
            final String job = ids.stream().filter(j -> !found.containsKey(j)).findFirst().orElseThrow();
            throw new AssertionError(what + " missing for " + job + " after " + timeout.toSeconds() + " s; the pool: "
                    + scheduler.pool(PipelineParts.POOL).map(JsonNode::toString).orElse("?") + "; decisions of the job: "
                    + decisions.all().stream().filter(d -> d.getJobId().equals(job)).toList() + "; its events: "
                    + events.all().stream().filter(ev -> ev.getJobId().equals(job)).toList(), e);
        }
        return found;
    }

    private PlacementDecision awaitDecision(final String jobId, final DecisionOutcome outcome) throws InterruptedException {
        return decisions.await(d -> d.getJobId().equals(jobId) && d.getOutcome() == outcome, WAIT, outcome + " of " + jobId);
    }

    /** Waits until the query API shows no GPU allocated and nothing queued: every job's capacity is back. */
    private void awaitPoolIdle() {
        final JsonNode pool = Awaitility.await("pool " + PipelineParts.POOL + " idle").atMost(WAIT)
                .pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                .until(() -> scheduler.pool(PipelineParts.POOL).orElse(null), p -> p != null
                        && p.path("gpus").path("allocated").asLong() == 0 && p.path("queue").path("total").asLong() == 0);
        assertThat(pool).as("the scheduler's view of pool %s", PipelineParts.POOL).isNotNull();
        assertThat(pool.path("gpus").path("allocated").asLong()).as("capacity released: %s", pool).isZero();
        assertThat(pool.path("gpus").path("total").asLong()).isEqualTo(GPUS);
        assertThat(pool.path("queue").path("total").asLong()).as("queue: %s", pool).isZero();
    }

    /** Every node command on the topic (all of them, from the start) has an APPLIED event naming it. */
    private void awaitEveryCommandApplied(final TopicLog<NodeCommand> commands) {
        final int[] seen = {-1};
        // every command answered, and the command log stood still for one poll
        Awaitility.await("every node command APPLIED").atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
            final List<NodeCommand> sent = commands.all();
            final Set<String> applied = events.all().stream().filter(e -> e.getType() == JobEventType.APPLIED)
                    .map(e -> String.valueOf(e.getCommandId())).collect(Collectors.toSet());
            final boolean settled = !sent.isEmpty() && sent.size() == seen[0]
                    && sent.stream().allMatch(c -> applied.contains(c.getCommandId()));
            seen[0] = sent.size();
            return settled;
        });
    }

    /** Waits until the scheduler has committed (decided) everything journaled before now. */
    private void awaitPlacerCaughtUp() throws Exception {
        final String journal = catalog.name(Topic.JOURNAL);
        final Map<TopicPartition, Long> ends;
        try (KafkaConsumer<byte[], byte[]> c = bytesConsumer()) {
            final List<TopicPartition> tps = c.partitionsFor(journal, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(journal, i.partition())).toList();
            ends = c.endOffsets(tps);
        }
        try (Admin admin = Admin.create(stack.adminConfig())) {
            Awaitility.await("scheduler " + applicationId + " decided up to " + ends).atMost(WAIT)
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS), now -> ends.entrySet().stream()
                            .allMatch(e -> e.getValue() == 0
                                    || (now.get(e.getKey()) != null && now.get(e.getKey()).offset() >= e.getValue())));
        }
    }

    private long deadLetters() {
        final String dlq = catalog.name(Topic.DLQ);
        try (KafkaConsumer<byte[], byte[]> c = bytesConsumer()) {
            final List<TopicPartition> tps = c.partitionsFor(dlq, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(dlq, i.partition())).toList();
            final Map<TopicPartition, Long> begin = c.beginningOffsets(tps);
            return c.endOffsets(tps).entrySet().stream().mapToLong(e -> e.getValue() - begin.get(e.getKey())).sum();
        }
    }

    private int partitionCount(final String topic) {
        try (KafkaConsumer<byte[], byte[]> c = bytesConsumer()) {
            return c.partitionsFor(topic, Duration.ofSeconds(30)).size();
        }
    }

    private KafkaConsumer<byte[], byte[]> bytesConsumer() {
        return new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("anyproducer-probe")), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }

    // ---- jobs

    private JobRequest.Builder request(final String name, final String priorityClass) {
        return JobRequest.newBuilder().setName(name).setTenant("vision").setPool(PipelineParts.POOL)
                .setPriorityClass(priorityClass);
    }

    private String submit(final String jobId, final JobRequest.Builder request) throws InterruptedException {
        jobs.sendAndWait(JobCommands.submit(jobId, request.build(), "e2e"));
        return jobId;
    }

    // ---- the command line

    private record Cli(int code, String out, String err) {
    }

    /** {@code gpupool audit}, in this JVM, against this stack's topics and this scheduler's committed position. */
    private Cli audit(final String... extra) {
        final List<String> all = new ArrayList<>(List.of("audit", "--bootstrap-server", stack.bootstrapServers(),
                "--registry-url", stack.requireRegistryUrl(), "--application-id", applicationId));
        for (final Topic t : Topic.values()) {
            all.addAll(List.of("--topic-name", t.id() + "=" + catalog.name(t)));
        }
        all.addAll(List.of(extra));
        final String[] argv = all.toArray(String[]::new);
        final CommandLine cmd = Gpupool.commandLine(argv, Map.of());
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        final int code = cmd.execute(argv);
        return new Cli(code, out.toString(), err.toString());
    }

    // ---- helpers

    /**
     * librdkafka's default partitioner, {@code consistent_random}: CRC32 of the key bytes modulo the
     * partition count; a record without a key (or with an empty one) goes to a random partition
     * (seeded here, so a run is repeatable).
     */
    public static final class Crc32Partitioner implements Partitioner {
        static final String SEED = "e2e.crc32-partitioner.seed";
        private Random random = new Random(0);

        static long crc32(final byte[] key) {
            final CRC32 crc = new CRC32();
            crc.update(key);
            return crc.getValue(); // unsigned, as librdkafka's rd_crc32
        }

        @Override
        public void configure(final Map<String, ?> configs) {
            final Object seed = configs.get(SEED);
            random = new Random(seed == null ? 0 : Long.parseLong(seed.toString()));
        }

        @Override
        public int partition(final String topic, final Object key, final byte[] keyBytes, final Object value,
                             final byte[] valueBytes, final Cluster cluster) {
            final int n = cluster.partitionCountForTopic(topic);
            return keyBytes == null || keyBytes.length == 0 ? random.nextInt(n) : (int) (crc32(keyBytes) % n);
        }

        @Override
        public void close() {
        }
    }

}
