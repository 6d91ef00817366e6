package io.gpupool.sink;

import static io.gpupool.sink.SinkTestKit.allocate;
import static io.gpupool.sink.SinkTestKit.count;
import static io.gpupool.sink.SinkTestKit.has;
import static io.gpupool.sink.SinkTestKit.stop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.sink.apply.CommandTemplate;
import io.gpupool.sink.apply.ExecApplier;
import io.gpupool.sink.apply.ProcessTree;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import io.gpupool.metrics.MetricsServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The exec sink on a real broker: a cancel stops the real process; a job that cannot start is FAILED after retries. */
@ExtendWith(LocalStackExtension.class)
class ExecSinkBrokerTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void cancelStopsTheRunningProcessAndReportsEvicted(final TestStack stack) throws Exception {
        final Path marker = dir.resolve("term.txt");
        final Path seen = dir.resolve("seen.txt");
        final Path job = dir.resolve("job.sh");
        Files.writeString(job, "#!/bin/bash\necho \"$GPUPOOL_JOB_ID $CUDA_VISIBLE_DEVICES $GPUPOOL_GPU_UUIDS\" > " + seen
                + "\ntrap 'echo term > " + marker + "; exit 143' TERM\nsleep 1000 &\nwait\n");
        Files.setPosixFilePermissions(job, PosixFilePermissions.fromString("rwx------"));
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            final ExecApplier exec = new ExecApplier(CommandTemplate.jobCommand(), Duration.ofSeconds(5), dir.resolve("logs"));
            try (SinkRunner sink = SinkRunner.create(kit.config(dir.resolve("state")), exec).start();
                 MetricsServer metrics = MetricsServer.start(sink.metrics().registry(), "127.0.0.1", 0)) {
                kit.send(allocate("train", "n1", 0, List.of(job.toString()), 2, 6));
                kit.eventsUntil(e -> has(e, "train", "STARTED"), WAIT);
                final ProcessHandle process = exec.processOf(sink.running().values().iterator().next()).orElseThrow();
                awaitFile(seen);
                assertThat(Files.readString(seen).trim()).isEqualTo("train 2,6 GPU-n1-2,GPU-n1-6");

                kit.send(stop(NodeCommandType.EVICT, "train", "n1", "cancelled by user"));
                final List<JobEvent> ev = kit.eventsUntil(e -> has(e, "train", "EVICTED"), WAIT);
                final JobEvent evicted = ev.stream().filter(e -> has(List.of(e), "train", "EVICTED")).findFirst().orElseThrow();
                assertThat(evicted.getExitCode()).isEqualTo(143);
                assertThat(evicted.getReason()).contains("cancelled by user", "SIGTERM");
                assertThat(Files.readString(marker).trim()).isEqualTo("term");
                assertThat(ProcessTree.alive(process)).isFalse();
                assertThat(count(ev, "train", "FAILED")).isZero();
                kit.eventsWhile(e -> count(e, "train", "COMPLETED") == 0, Duration.ofSeconds(1));

                final String scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + metrics.port() + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                assertThat(scrape).contains("gpupool_sink_commands_applied_total{applier=\"exec\",type=\"EVICT\"} 1.0",
                        "gpupool_sink_running_jobs{applier=\"exec\"} 0.0");
            }
        }
    }

    @Test
    void aJobThatCannotStartIsRetriedThenFailedWithTheReason(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            final ExecApplier exec = new ExecApplier(CommandTemplate.jobCommand(), Duration.ofSeconds(1), dir.resolve("logs"));
            try (SinkRunner sink = SinkRunner.create(kit.config(dir.resolve("state")), exec).start()) {
                kit.send(allocate("broken", "n1", 0, List.of(dir.resolve("no-such-program").toString()), 0));
                kit.send(allocate("empty", "n1", 0, List.of(), 1));
                final List<JobEvent> ev = kit.eventsUntil(e -> has(e, "broken", "FAILED") && has(e, "empty", "FAILED"), WAIT);
                final JobEvent failed = ev.stream().filter(e -> has(List.of(e), "broken", "FAILED")).findFirst().orElseThrow();
                assertThat(failed.getReason()).contains("could not start", "no-such-program");
                assertThat(count(ev, "broken", "STARTED")).isZero();
                // 3 attempts for the missing program; none for a job without a command (retrying cannot help).
                assertThat(sink.metrics().count("gpupool.sink.commands.retries", "ALLOCATE")).isEqualTo(2);
                assertThat(sink.metrics().count("gpupool.sink.commands.failed", "ALLOCATE")).isEqualTo(2);
                assertThat(sink.running()).isEmpty();
            }
        }
    }

    private static void awaitFile(final Path p) {
        await("file " + p).atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> Files.exists(p));
    }
}
