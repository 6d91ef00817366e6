package io.gpupool.bench.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A separately run scheduler (a child JVM) SIGKILLed twice under a steady job load, each time restarted on its
 * state directory: every job still gets its final decision, no decision is written twice (read_committed), and
 * the audit of the topics (decisions, node commands, what the sink ran) is clean. How fast is the bench's.
 */
@ExtendWith(LocalStackExtension.class)
// a child JVM's start, kill and takeover are mostly waiting: it runs beside the sequential classes (see the
// root pom's surefire settings), on topics and an application id of its own
@Execution(ExecutionMode.CONCURRENT)
class RestartBenchTest {

    @Test
    void killedTwiceUnderLoadLosesAndDuplicatesNoDecisionAndAuditsClean(final TestStack stack) throws Exception {
        final Map<String, String> figures = RestartBench.run(new RestartBenchOptions(stack.bootstrapServers(),
                stack.requireRegistryUrl(), new Properties(), 2, 6, 3, Duration.ofSeconds(5), Duration.ofSeconds(3),
                Files.createTempDirectory("gpupool-restart-test-")), System.err);
        assertThat(Long.parseLong(figures.get("jobs_submitted"))).as("figures %s", figures).isPositive();
        assertThat(figures).containsEntry("jobs_without_final_decision", "0").containsEntry("decisions_duplicated", "0")
                .containsEntry("audit_passed", "true").containsEntry("passed", "true");
    }

    @Test
    void percentilesAreNearestRank() {
        assertThat(RestartBench.percentile(new long[] {}, 50)).isZero();
        assertThat(RestartBench.percentile(new long[] {7}, 90)).isEqualTo(7);
        assertThat(RestartBench.percentile(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 50)).isEqualTo(5);
        assertThat(RestartBench.percentile(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90)).isEqualTo(9);
    }
}
