package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.NodeInventory;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerializer;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code gpupool queue} and {@code gpupool explain} against a scheduler running on the local stack. */
@ExtendWith(LocalStackExtension.class)
class QueueExplainCommandTest {

    @Test
    void queueShowsTheWaitingJobWithItsReasonAndExplainItsHistory(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("cli-queue");
        final Map<String, String> names = new HashMap<>();
        for (final Topic t : Topic.values()) {
            names.put(TopicCatalog.PREFIX + t.id() + ".name", prefix + "." + t.id());
        }
        final TopicCatalog catalog = TopicCatalog.defaults().withOverrides(names);
        final SchedulerOptions o = new SchedulerOptions(prefix + "-app", stack.bootstrapServers(), stack.requireRegistryUrl(),
                new Properties(), false, Files.createTempDirectory("gpupool-cli-it-"), "127.0.0.1", 0, Map.of(), 100,
                5_000, catalog);
        final Map<String, Object> serde = Map.of(RegistryClientConfig.URL, stack.requireRegistryUrl());
        try (SchedulerApp app = SchedulerApp.start(o);
             KafkaProducer<String, SpecificRecord> p = new KafkaProducer<>(stack.producerConfig(), new StringSerializer(),
                     new SpecificAvroSerializer<>(AvroSerdeConfig.registry(serde), true, false))) {
            assertThat(app.awaitRunning(Duration.ofSeconds(90))).isTrue();
            final List<GpuInfo> gpus = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                gpus.add(GpuInfo.newBuilder().setUuid("GPU-c0-" + i).setIndex(i).setModel("A100").build());
            }
            p.send(new ProducerRecord<>(catalog.name(Topic.INVENTORY), "c0", NodeInventory.newBuilder().setNodeId("c0")
                    .setPool("cli").setObservedAt(Instant.EPOCH).setSource("test").setGpus(gpus).build()));
            // a one-GPU node: the waiting two-GPU job would run on it with one GPU, which explain must say
            p.send(new ProducerRecord<>(catalog.name(Topic.INVENTORY), "c1", NodeInventory.newBuilder().setNodeId("c1")
                    .setPool("cli").setObservedAt(Instant.EPOCH).setSource("test")
                    .setGpus(List.of(GpuInfo.newBuilder().setUuid("GPU-c1-0").setIndex(0).setModel("A100").build())).build()));
            p.flush();
            // both nodes first: with only c1 known, the four-GPU job would be rejected as larger than the pool
            await("2 nodes in the engine").atMost(Duration.ofSeconds(60)).until(() -> app.engines().nodesKnown("cli") == 2);
            p.send(new ProducerRecord<>(catalog.name(Topic.JOBS), "first", submit("first", 4)));
            p.flush();
            final String url = "http://127.0.0.1:" + app.httpPort();
            // The second job must arrive after the first took every GPU, so that it queues behind it.
            await("first placed").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(300))
                    .until(() -> CliRun.of("explain", "first", "--scheduler-url", url).out().contains("placed"));
            p.send(new ProducerRecord<>(catalog.name(Topic.JOBS), "second", submit("second", 2)));
            p.flush();

            final CliRun queue = await("second queued").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(300))
                    .until(() -> CliRun.of("queue", "--scheduler-url", url), q -> q.out().contains("second"));
            assertThat(queue.exitCode()).as(queue.err()).isZero();
            assertThat(queue.out()).contains("JOBID", "REASON").containsPattern("second +cli +team +batch +0 +queued");
            assertThat(queue.out()).doesNotContain("first");
            final String reasonLine = queue.out().lines().filter(l -> l.startsWith("second")).findFirst().orElseThrow();
            assertThat(reasonLine).containsPattern("[A-Z_]+: .+");

            final CliRun explain = CliRun.of("explain", "second", "--scheduler-url", url);
            assertThat(explain.exitCode()).as(explain.err()).isZero();
            assertThat(explain.out()).contains("job second in pool cli: queued", "reason:", "decisions:", "QUEUED");
            // the way out: the change that places it now, with its flag, and the job whose end frees the room
            assertThat(explain.out()).contains("would run now if (any one of):\n    1 GPU instead of 2 (--gpus 1)\n")
                    .containsPattern("waiting for: job first \\(tenant team, 4 GPUs on c0, ends ~in \\d+[smh]");
            final CliRun placed = CliRun.of("explain", "first", "--scheduler-url", url);
            assertThat(placed.out()).contains("placed", "on c0 GPUs [0,1,2,3]")
                    .containsPattern("PLACED +PLACED: placed on c0 GPUs 0-3 \\(one node, leaf \\S+\\) by best-fit, "
                            + "score -?\\d+ \\(higher is better\\)")
                    .doesNotContain("(node ").doesNotContain("would run now if");
            final CliRun missing = CliRun.of("explain", "nope", "--scheduler-url", url);
            assertThat(missing.exitCode()).isEqualTo(ExitCodes.NOT_FOUND.code());
            assertThat(missing.err()).contains("no job nope");
        }
    }

    private static JobCommand submit(final String id, final int gpus) {
        return JobCommand.newBuilder().setJobId(id).setCommandId("c-" + id).setCommand(JobSubmit.newBuilder()
                .setRequest(JobRequest.newBuilder().setName(id).setTenant("team").setPool("cli").setGpusPerNode(gpus).build())
                .build()).build();
    }
}
