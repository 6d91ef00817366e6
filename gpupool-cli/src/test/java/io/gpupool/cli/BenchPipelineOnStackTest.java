package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code gpupool bench pipeline}, small, on the real local broker: the paced run, the scheduler's
 * own drain and the pass-through ceiling all finish and print their figures.
 */
@ExtendWith(LocalStackExtension.class)
class BenchPipelineOnStackTest {

    @Test
    void aSmallRunPrintsEveryFigure(final TestStack stack) {
        final CliRun r = CliRun.of("bench", "pipeline", "--bootstrap-server", stack.bootstrapServers(),
                "--registry-url", stack.requireRegistryUrl(), "--nodes", "16", "--leaves", "2", "--rate", "100",
                "--warmup", "2", "--measure", "3", "--job-runtime-ms", "200", "--passthrough-records", "2000",
                "--drain-records", "1000");
        assertThat(r.exitCode()).as(r.err()).isZero();
        for (final String name : new String[] {"requests_per_s", "p50_latency_ms", "p99_latency_ms",
                "passthrough_requests_per_s", "drain_requests_per_s"}) {
            assertThat(r.out().lines()).as(r.out()).anyMatch(l -> l.matches(name + "=[1-9]\\d*"));
        }
        assertThat(r.out().lines()).contains("requests_undecided=0", "drain_records=1000", "drain_undecided=0");
        assertThat(r.out().lines()).anyMatch(l -> l.matches("ratio=0\\.\\d{3}"))
                .anyMatch(l -> l.matches("drain_ratio=\\d\\.\\d{3}"));
    }
}
