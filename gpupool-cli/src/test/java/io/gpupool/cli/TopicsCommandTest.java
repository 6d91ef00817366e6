package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code gpupool topics} against a real broker (the shared test stack). */
@ExtendWith(LocalStackExtension.class)
class TopicsCommandTest {

    @TempDir
    Path dir;

    /** A config file that renames every topic, so this test's topics are its own on the shared broker. */
    private Path renamingConfig(final TestStack stack, final String extra) throws Exception {
        final String prefix = stack.uniqueName("cli");
        final StringBuilder text = new StringBuilder();
        for (final Topic topic : Topic.values()) {
            text.append(TopicCatalog.PREFIX).append(topic.id()).append(".name=").append(prefix).append('.')
                    .append(topic.defaultName()).append('\n');
        }
        text.append(extra);
        final Path file = dir.resolve(prefix + ".properties");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void createsTheTopicsThenVerifiesThem(final TestStack stack) throws Exception {
        final Path config = renamingConfig(stack, "gpupool.topic.journal.partitions=5\n");
        final String journal = TopicCatalog.defaults().withOverrides(load(config)).name(Topic.JOURNAL);

        final CliRun verifyFirst = CliRun.of("topics", "--bootstrap-server", stack.bootstrapServers(), "--config", config.toString(), "--verify");
        assertThat(verifyFirst.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED.code());
        assertThat(verifyFirst.out()).contains(journal).contains("MISSING");
        assertThat(verifyFirst.err()).contains("run without --verify");

        final CliRun create = CliRun.of("topics", "--bootstrap-server", stack.bootstrapServers(), "--config", config.toString());
        assertThat(create.exitCode()).as(create.err()).isZero();
        assertThat(create.out()).contains("CREATED").contains("9 topics match the catalog");

        final CliRun verify = CliRun.of("topics", "--bootstrap-server", stack.bootstrapServers(), "--config", config.toString(), "--verify");
        assertThat(verify.exitCode()).isZero();
        try (Admin admin = Admin.create(stack.adminConfig())) {
            assertThat(admin.describeTopics(List.of(journal)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(journal).partitions()).hasSize(5);
            final ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, journal);
            assertThat(admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r)
                    .get("retention.ms").value()).isEqualTo("-1");
        }
    }

    @Test
    void makesTenantsJobTopicsAsTheJobsTopicIs(final TestStack stack) throws Exception {
        final Path config = renamingConfig(stack, "gpupool.topic.jobs.partitions=4\n");
        final String jobs = TopicCatalog.defaults().withOverrides(load(config)).name(Topic.JOBS);

        final CliRun create = CliRun.of("topics", "--bootstrap-server", stack.bootstrapServers(), "--config", config.toString(),
                "--tenants", "team-a,team-b");
        assertThat(create.exitCode()).as(create.err()).isZero();
        assertThat(create.out()).contains(jobs + ".team-a").contains("11 topics match the catalog");
        try (Admin admin = Admin.create(stack.adminConfig())) {
            assertThat(admin.describeTopics(List.of(jobs + ".team-b")).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(jobs + ".team-b").partitions()).hasSize(4);
        }
        final CliRun bad = CliRun.of("topics", "--bootstrap-server", stack.bootstrapServers(), "--tenants", "Team.A");
        assertThat(bad.exitCode()).isEqualTo(ExitCodes.USAGE.code());
        assertThat(bad.err()).contains("--tenants: tenant 'Team.A' cannot have a job topic").contains("lower-case");
    }

    @Test
    void findsTheLocalStackThroughItsDataDirAndReadsClientSettings(final TestStack stack) throws Exception {
        final Path config = renamingConfig(stack, "");
        final Path client = dir.resolve("client.properties");
        Files.writeString(client, "client.id=gpupool-topics-test\nsecurity.protocol=PLAINTEXT\n");
        final CliRun run = CliRun.of("topics", "--data-dir", stack.dataDir().toString(),
                "--command-config", client.toString(), "--config", config.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("on " + stack.bootstrapServers());
    }

    @Test
    void aClientConfigTheBrokerCannotSpeakFailsWithinTheTimeout(final TestStack stack) throws Exception {
        final Path client = dir.resolve("ssl.properties");
        Files.writeString(client, "security.protocol=SSL\n");
        final CliRun run = CliRun.of("topics", "--bootstrap-server", stack.bootstrapServers(),
                "--command-config", client.toString(), "--verify", "--timeout", "3s");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("gpupool topics:");
    }

    private static Map<String, String> load(final Path file) throws Exception {
        final Properties p = new Properties();
        try (var reader = Files.newBufferedReader(file)) {
            p.load(reader);
        }
        final Map<String, String> map = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> map.put(k, p.getProperty(k)));
        return map;
    }
}
