package io.gpupool.collector.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.collector.TestFiles;
import io.gpupool.collector.fake.FakeNvidiaSmi;
import io.gpupool.collector.publish.PublisherTopics;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroDeserializer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live collector as {@code gpupool collector} starts it: a child process in place of
 * nvidia-smi, a copy of the real sysfs tree, a kernel log to follow, a real broker and registry,
 * and its /metrics endpoint.
 */
@ExtendWith(LocalStackExtension.class)
class LiveCollectorOnLocalStackTest {

    @Test
    void publishesWhatItPolls(final TestStack stack, @TempDir final Path dir) throws Exception {
        final PublisherTopics topics = new PublisherTopics(stack.uniqueName("inventory"), stack.uniqueName("gpu"),
                stack.uniqueName("link"));
        try (Admin admin = Admin.create(stack.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(topics.inventory(), 1, (short) 1), new NewTopic(topics.gpu(), 1, (short) 1),
                    new NewTopic(topics.link(), 1, (short) 1))).all().get();
        }
        final Path smi = FakeNvidiaSmi.write(dir.resolve("smi"), 8);
        final Path kernelLog = dir.resolve("kern.log");
        Files.writeString(kernelLog, "");
        final LiveOptions options = new LiveOptions("node-a", "pool-1", "nvidia-smi", smi.toString(), null,
                TestFiles.path("sysfs/h100-ndr-ib-roce"), kernelLog.toString(), null, Duration.ofMillis(500),
                stack.bootstrapServers(), stack.requireRegistryUrl(), 0, 1000, Map.of("rack", "r9"));
        try (LiveCollector collector = LiveCollector.start(options, topics)) {
            Files.writeString(kernelLog, "NVRM: Xid (PCI:0000:2a:00): 94, pid=1, name=python, Contained ECC error\n",
                    StandardOpenOption.APPEND);
            final NodeInventory inventory = read(stack, topics.inventory(), NodeInventory.class, 1).get(0);
            assertThat(inventory.getPool()).isEqualTo("pool-1");
            assertThat(inventory.getLabels()).containsEntry("rack", "r9");
            assertThat(inventory.getGpus()).hasSize(8);
            assertThat(inventory.getHcas()).hasSize(9);
            final List<GpuSamples> gpus = read(stack, topics.gpu(), GpuSamples.class, 3);
            assertThat(gpus).allMatch(g -> g.getNodeId().equals("node-a") && g.getGpus().size() == 8);
            assertThat(gpus.stream().flatMap(g -> g.getGpus().stream()).filter(g -> g.getIndex() == 2)
                    .anyMatch(g -> g.getXidCodes().contains(94))).isTrue();
            final List<LinkSamples> links = read(stack, topics.link(), LinkSamples.class, 2);
            assertThat(links.get(0).getPorts()).hasSize(9);
            final String scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + collector.metricsPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(scrape).contains("gpupool_collector_records_sent_total").contains("gpupool_gpu_power_usage_watts{");
        }
    }

    private static <T extends SpecificRecord> List<T> read(final TestStack stack, final String topic, final Class<T> type,
            final int atLeast) {
        final SpecificAvroDeserializer<T> values = new SpecificAvroDeserializer<>();
        values.configure(Map.of(RegistryClientConfig.URL, stack.requireRegistryUrl(), AvroSerdeConfig.VALUE_TYPE, type), false);
        final List<T> out = new ArrayList<>();
        try (KafkaConsumer<String, T> consumer = new KafkaConsumer<>(stack.consumerConfig(stack.uniqueName("reader")),
                new StringDeserializer(), values)) {
            consumer.subscribe(Set.of(topic));
            await(atLeast + " records of " + topic).atMost(Duration.ofSeconds(60)).pollInSameThread()
                    .pollDelay(Duration.ZERO).until(() -> {
                        for (final ConsumerRecord<String, T> r : consumer.poll(Duration.ofMillis(300))) {
                            out.add(r.value());
                        }
                        return out.size() >= atLeast;
                    });
        }
        assertThat(out).hasSizeGreaterThanOrEqualTo(atLeast);
        return out;
    }
}
