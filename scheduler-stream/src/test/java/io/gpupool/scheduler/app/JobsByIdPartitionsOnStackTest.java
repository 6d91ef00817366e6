package io.gpupool.scheduler.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every start reads the partitions of the repartition by job id (the keyer needs them), just after creating
 * the topics it lacks. A topic created a moment before can be listed and not yet described
 * (UnknownTopicOrPartition): the start waits for it instead of failing, as a first `bench cost` did in CI.
 */
@ExtendWith(LocalStackExtension.class)
class JobsByIdPartitionsOnStackTest {
    @Test
    void aStartRightAfterCreatingItsTopicsReadsTheirPartitions(final TestStack stack) throws Exception {
        try (Admin admin = Admin.create(stack.adminConfig())) {
            for (int round = 0; round < 5; round++) {
                final String prefix = stack.uniqueName("by-id-" + round);
                final TopicCatalog catalog = OutputCompressionOnStackTest.catalog(prefix);
                final SchedulerOptions o = new SchedulerOptions(prefix + "-app", stack.bootstrapServers(), "mock://unused",
                        new Properties(), false, Files.createTempDirectory("gpupool-it-"), "", 0, Map.of(), 1_000, 5_000,
                        catalog);
                SchedulerApp.createMissingTopics(admin, o);
                assertThat(SchedulerApp.jobsByIdPartitions(admin, o)).as("round %d", round)
                        .isEqualTo(catalog.spec(Topic.JOBS).partitions());
            }
        }
    }
}
