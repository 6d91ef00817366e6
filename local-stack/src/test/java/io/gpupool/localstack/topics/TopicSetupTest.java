package io.gpupool.localstack.topics;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import io.gpupool.topics.TopicSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LocalStackExtension.class)
public class TopicSetupTest {

    @Test
    void createsEveryCatalogTopicWithItsConfigsAndThenVerifiesThem(final TestStack stack) throws Exception {
        createAndVerify(stack);
    }

    /** Also run against the Testcontainers broker. */
    public static void createAndVerify(final TestStack stack) throws Exception {
        final List<TopicSpec> specs = renamed(stack, "create");
        try (Admin admin = Admin.create(stack.adminConfig())) {
            final TopicSetup setup = new TopicSetup(admin, Duration.ofSeconds(30));
            assertThat(setup.verify(specs)).allMatch(s -> s.state() == TopicStatus.State.MISSING);

            assertThat(setup.apply(specs, false)).allMatch(s -> s.state() == TopicStatus.State.CREATED);
            assertThat(setup.verify(specs)).allMatch(s -> s.state() == TopicStatus.State.OK);
            assertThat(setup.apply(specs, false)).as("a second run changes nothing")
                    .allMatch(s -> s.state() == TopicStatus.State.OK);

            // Read the configs back straight from the broker, not through TopicSetup.
            final TopicSpec inventory = specs.get(Topic.INVENTORY.ordinal());
            final TopicSpec journal = specs.get(Topic.JOURNAL.ordinal());
            assertThat(config(admin, inventory.name()).get("cleanup.policy").value()).isEqualTo("compact");
            assertThat(config(admin, journal.name()).get("retention.ms").value()).isEqualTo("-1");
            assertThat(admin.describeTopics(List.of(journal.name())).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(journal.name()).partitions()).hasSize(journal.partitions());
        }
    }

    @Test
    void reportsATopicThatDiffersAndFixesItsConfigsWhenAsked(final TestStack stack) throws Exception {
        final TopicSpec journal = renamed(stack, "drift").get(Topic.JOURNAL.ordinal());
        try (Admin admin = Admin.create(stack.adminConfig())) {
            createVisible(admin, new NewTopic(journal.name(), journal.partitions(), (short) 1)
                    .configs(Map.of("retention.ms", "3600000")));
            final TopicSetup setup = new TopicSetup(admin, Duration.ofSeconds(30));

            final TopicStatus found = setup.verify(List.of(journal)).get(0);
            assertThat(found.state()).isEqualTo(TopicStatus.State.DIFFERS);
            assertThat(found.differences()).anyMatch(d -> d.equals("retention.ms is 3600000, want -1"));
            assertThat(setup.apply(List.of(journal), false).get(0).state()).isEqualTo(TopicStatus.State.DIFFERS);

            assertThat(setup.apply(List.of(journal), true).get(0).state()).isEqualTo(TopicStatus.State.ALTERED);
            assertThat(config(admin, journal.name()).get("retention.ms").value()).isEqualTo("-1");
        }
    }

    @Test
    void aPartitionCountThatDiffersIsReportedAndNeverChanged(final TestStack stack) throws Exception {
        final TopicSpec jobs = renamed(stack, "parts").get(Topic.JOBS.ordinal());
        try (Admin admin = Admin.create(stack.adminConfig())) {
            createVisible(admin, new NewTopic(jobs.name(), jobs.partitions() + 1, (short) 1).configs(jobs.configs()));
            final TopicStatus status = new TopicSetup(admin, Duration.ofSeconds(30)).apply(List.of(jobs), true).get(0);
            assertThat(status.state()).isEqualTo(TopicStatus.State.DIFFERS);
            assertThat(status.describe()).contains("has " + (jobs.partitions() + 1) + " partitions, want " + jobs.partitions());
        }
    }

    /** The catalog with every topic renamed, so tests sharing the broker don't collide. */
    private static List<TopicSpec> renamed(final TestStack stack, final String prefix) {
        final String unique = stack.uniqueName(prefix);
        final Map<String, String> overrides = new HashMap<>();
        for (final Topic topic : Topic.values()) {
            overrides.put(TopicCatalog.PREFIX + topic.id() + ".name", unique + "." + topic.defaultName());
        }
        return TopicCatalog.defaults().withOverrides(overrides).all();
    }

    /**
     * Creates a topic as another client would, and waits until the broker's metadata shows it: the controller has
     * committed it when createTopics returns, and a describe right after can still answer that it does not exist.
     */
    private static void createVisible(final Admin admin, final NewTopic topic) throws Exception {
        admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        Awaitility.await("topic " + topic.name() + " in the broker's metadata").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .until(() -> admin.describeTopics(List.of(topic.name())).allTopicNames().get(30, TimeUnit.SECONDS)
                        .containsKey(topic.name()));
    }

    private static Config config(final Admin admin, final String topic) throws Exception {
        final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
    }
}
