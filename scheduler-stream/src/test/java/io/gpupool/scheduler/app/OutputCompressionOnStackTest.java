package io.gpupool.scheduler.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import io.gpupool.topics.TopicSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The scheduler writes lz4 only where every client can still read what it writes: on topics the broker
 * re-encodes as gzip (those gpupool creates); on topics that keep the producer's codec it writes gzip.
 */
@ExtendWith(LocalStackExtension.class)
class OutputCompressionOnStackTest {
    private static final String KEY = "producer.compression.type";

    @Test
    void topicsCreatedFromTheCatalogAreStoredAsGzipSoTheSchedulerWritesLz4(final TestStack stack) throws Exception {
        final TopicCatalog catalog = catalog(stack.uniqueName("codec-catalog"));
        try (Admin admin = Admin.create(stack.adminConfig())) {
            create(admin, catalog, null);
            assertThat(OutputCompression.choose(admin, catalog, stack.bootstrapServers()).getProperty(KEY)).isEqualTo("lz4");
        }
    }

    @Test
    void aTopicThatKeepsTheProducersCodecMakesTheSchedulerWriteGzip(final TestStack stack) throws Exception {
        final TopicCatalog catalog = catalog(stack.uniqueName("codec-legacy"));
        try (Admin admin = Admin.create(stack.adminConfig())) {
            create(admin, catalog, Topic.NODE_COMMANDS); // as created before this version, or by hand
            assertThat(OutputCompression.choose(admin, catalog, stack.bootstrapServers()).getProperty(KEY)).isEqualTo("gzip");
        }
    }

    @Test
    void topicsThatCannotBeReadMakeTheSchedulerWriteGzip(final TestStack stack) throws Exception {
        final TopicCatalog catalog = catalog(stack.uniqueName("codec-missing")); // none of them exists
        try (Admin admin = Admin.create(stack.adminConfig())) {
            assertThat(OutputCompression.choose(admin, catalog, stack.bootstrapServers()).getProperty(KEY)).isEqualTo("gzip");
        }
    }

    @Test
    void aCodecTheCallerNamesIsTheirs() {
        final Properties prefixed = new Properties();
        prefixed.setProperty(KEY, "zstd");
        final Properties plain = new Properties();
        plain.setProperty("compression.type", "none");
        assertThat(OutputCompression.chosenByCaller(prefixed)).isTrue();
        assertThat(OutputCompression.chosenByCaller(plain)).isTrue();
        assertThat(OutputCompression.chosenByCaller(new Properties())).isFalse();
    }

    /** Creates the catalog's topics as it specifies them, except that {@code producersCodec} (if any) gets no codec. */
    private static void create(final Admin admin, final TopicCatalog catalog, final Topic producersCodec) throws Exception {
        final List<NewTopic> topics = new ArrayList<>();
        for (final TopicSpec s : catalog.all()) {
            final NewTopic t = s.newTopic();
            if (s.topic() == producersCodec) {
                final Map<String, String> configs = new TreeMap<>(t.configs());
                configs.remove("compression.type");
                t.configs(configs);
            }
            topics.add(t);
        }
        admin.createTopics(topics).all().get();
    }

    /** The default catalog with every topic named {@code <prefix>.<topic id>}. */
    static TopicCatalog catalog(final String prefix) {
        final Map<String, String> names = new TreeMap<>();
        for (final Topic t : Topic.values()) {
            names.put(TopicCatalog.PREFIX + t.id() + ".name", prefix + "." + t.id());
        }
        return TopicCatalog.defaults().withOverrides(names);
    }
}
