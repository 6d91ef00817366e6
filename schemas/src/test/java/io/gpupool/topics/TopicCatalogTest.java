package io.gpupool.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

class TopicCatalogTest {

    @Test
    void defaultsFollowTheDesignTable() {
        final TopicCatalog catalog = TopicCatalog.defaults();
        assertThat(catalog.all()).hasSize(9);
        assertThat(catalog.name(Topic.INVENTORY)).isEqualTo("gpupool.inventory");
        assertThat(catalog.spec(Topic.INVENTORY).cleanupPolicy()).isEqualTo("compact");
        assertThat(catalog.spec(Topic.TELEMETRY_GPU).configs()).containsEntry("retention.ms", "21600000");
        assertThat(catalog.spec(Topic.JOURNAL).configs())
                .containsEntry("retention.ms", "-1").containsEntry("retention.bytes", "-1")
                .containsEntry("cleanup.policy", "delete");
        assertThat(catalog.spec(Topic.DECISIONS).configs()).containsEntry("retention.ms", "-1");
        assertThat(catalog.name(Topic.NODE_COMMANDS)).isEqualTo("gpupool.node-commands");
        assertThat(catalog.name(Topic.DLQ)).isEqualTo("gpupool.dlq");
    }

    @Test
    void theTopicsEveryClientReadsAreStoredAsGzipAndTheRestKeepTheProducersCodec() {
        final TopicCatalog catalog = TopicCatalog.defaults();
        for (final Topic t : Topic.values()) {
            if (t == Topic.DECISIONS || t == Topic.NODE_COMMANDS || t == Topic.DLQ) {
                assertThat(catalog.spec(t).configs()).as(t.id()).containsEntry("compression.type", "gzip");
            } else {
                assertThat(catalog.spec(t).configs()).as(t.id()).doesNotContainKey("compression.type");
            }
        }
    }

    @Test
    void overridesRenameAndResize() {
        final TopicCatalog catalog = TopicCatalog.defaults().withOverrides(Map.of(
                "gpupool.topics.partitions", "6",
                "gpupool.topic.journal.name", "prod.journal",
                "gpupool.topic.journal.partitions", "12",
                "gpupool.topic.telemetry.gpu.config.retention.ms", "3600000",
                "gpupool.topic.telemetry.link.replication", "3",
                "bootstrap.servers", "ignored:9092"));
        assertThat(catalog.name(Topic.JOURNAL)).isEqualTo("prod.journal");
        assertThat(catalog.spec(Topic.JOURNAL).partitions()).isEqualTo(12);
        assertThat(catalog.spec(Topic.JOBS).partitions()).isEqualTo(6);
        assertThat(catalog.spec(Topic.TELEMETRY_GPU).configs()).containsEntry("retention.ms", "3600000");
        assertThat(catalog.spec(Topic.TELEMETRY_GPU).partitions()).isEqualTo(6);
        assertThat(catalog.spec(Topic.TELEMETRY_LINK).replicationFactor()).isEqualTo((short) 3);
        assertThat(TopicCatalog.defaults().name(Topic.JOURNAL)).isEqualTo("gpupool.journal");
    }

    @Test
    void newTopicCarriesEverySetting() {
        final NewTopic nt = TopicCatalog.defaults().spec(Topic.INVENTORY).newTopic();
        assertThat(nt.name()).isEqualTo("gpupool.inventory");
        assertThat(nt.numPartitions()).isEqualTo(3);
        assertThat(nt.replicationFactor()).isEqualTo((short) -1);
        assertThat(nt.configs()).containsEntry("cleanup.policy", "compact");
    }

    @Test
    void badSettingsNameTheFix() {
        assertThatThrownBy(() -> TopicCatalog.defaults().withOverrides(Map.of("gpupool.topic.jurnal.name", "x")))
                .hasMessageContaining("known topic ids are").hasMessageContaining("journal");
        assertThatThrownBy(() -> TopicCatalog.defaults().withOverrides(Map.of("gpupool.topic.jobs.size", "x")))
                .hasMessageContaining(".name, .partitions, .replication or .config.");
        assertThatThrownBy(() -> TopicCatalog.defaults().withOverrides(Map.of("gpupool.topic.jobs.partitions", "many")))
                .hasMessageContaining("not a whole number");
        assertThatThrownBy(() -> TopicCatalog.defaults().withOverrides(Map.of("gpupool.topic.jobs.partitions", "0")))
                .hasMessageContaining("partitions must be >= 1");
        assertThatThrownBy(() -> TopicCatalog.defaults().withOverrides(Map.of("gpupool.topic.jobs.name", "a b")))
                .hasMessageContaining("invalid topic name");
    }

    @Test
    void parseAcceptsIdEnumAndDefaultName() {
        assertThat(Topic.parse("job-events")).isEqualTo(Topic.JOB_EVENTS);
        assertThat(Topic.parse("JOB_EVENTS")).isEqualTo(Topic.JOB_EVENTS);
        assertThat(Topic.parse("gpupool.telemetry.gpu")).isEqualTo(Topic.TELEMETRY_GPU);
        assertThatThrownBy(() -> Topic.parse("nope")).hasMessageContaining("known:");
    }
}
