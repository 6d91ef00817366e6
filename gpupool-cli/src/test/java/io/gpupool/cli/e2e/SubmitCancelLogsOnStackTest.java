package io.gpupool.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.e2e.LocalPipeline.Cli;
import io.gpupool.cli.submit.LocalSink;
import io.gpupool.cli.up.PipelineParts;
import io.gpupool.cli.up.SchedulerProbe;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.scheduler.query.QueryEndpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write side of the CLI against a real pipeline (broker, scheduler, a 4-node fleet with an H100 and an A100
 * island, the sink running commands as processes): cancel of unknown and ended jobs, submit's check against the
 * pool, model aliases, --wait=started|finished, the job file's names and {@code gpupool logs}.
 */
@ExtendWith(LocalStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Execution(ExecutionMode.CONCURRENT)
class SubmitCancelLogsOnStackTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private TestStack stack;
    private Path dir;
    private LocalPipeline pipeline;

    @BeforeAll
    void startThePipeline(final TestStack stack, @TempDir final Path tempDir) throws Exception {
        this.stack = stack;
        this.dir = tempDir;
        pipeline = LocalPipeline.start(stack, dir, "cli-write", "--nodes", "4", "--gpus-per-node", "8", "--leaves", "2",
                "--seed", "3", "--telemetry-interval", "1s", "--time-scale", "1", "--exec-jobs", "--no-generator",
                "--progress-every", "0s");
        final SchedulerProbe scheduler = new SchedulerProbe(QueryEndpoint.find(pipeline.dataDir).orElseThrow());
        await("the scheduler sees the 4 nodes").atMost(WAIT).pollInterval(Duration.ofMillis(300))
                .until(() -> scheduler.pool(PipelineParts.POOL).map(view -> view.path("nodes").asInt()).orElse(0) == 4);
    }

    @AfterAll
    void stopThePipeline() throws Exception {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void cancelOfAnUnknownJobAnswersAtOnceWithNotFound() {
        final long started = System.nanoTime();
        final Cli cancel = cli("cancel", "no-such-job", "--wait");
        assertThat(cancel.code()).as(cancel.err()).isEqualTo(ExitCodes.NOT_FOUND.code());
        assertThat(cancel.err()).contains("no job no-such-job").contains("gpupool queue");
        assertThat(cancel.out()).as("nothing was sent").isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aJobThatCanNeverFitIsRefusedBeforeItIsSent() {
        final Cli tooWide = cli("submit", "--job-id", "never-9", "--gpus", "9");
        assertThat(tooWide.code()).as(tooWide.err()).isEqualTo(ExitCodes.REFUSED.code());
        assertThat(tooWide.err()).contains("refused, the job can never run").contains("EXCEEDS_POOL_CAPACITY")
                .contains("--no-check");
        assertThat(tooWide.out()).as("no job id: nothing sent").isEmpty();
        // 15 GPUs fit in the 16 of one model, but only 2 nodes of a model have 5 GPUs
        final Cli tooManyNodes = cli("submit", "--job-id", "never-gang", "--nodes", "3", "--gpus", "5");
        assertThat(tooManyNodes.code()).as(tooManyNodes.toString()).isEqualTo(ExitCodes.REFUSED.code());
        assertThat(tooManyNodes.err()).as(tooManyNodes.toString()).contains("GANG_LARGER_THAN_POOL");
        final Cli model = cli("submit", "--job-id", "never-b200", "--gpus", "1", "--gpu-model", "B200");
        assertThat(model.code()).as(model.toString()).isEqualTo(ExitCodes.REFUSED.code());
        assertThat(model.err()).as(model.toString()).contains("UNKNOWN_MODEL").contains("NVIDIA H100 80GB HBM3");
        final Cli pool = cli("submit", "--job-id", "never-pool", "--gpus", "1", "--pool", "nowhere");
        assertThat(pool.code()).as(pool.toString()).isEqualTo(ExitCodes.REFUSED.code());
        assertThat(pool.err()).as(pool.toString()).contains("pool 'nowhere' has no nodes").contains(PipelineParts.POOL);
        // the check is the client's: --no-check sends it, and the scheduler rejects it itself
        final Cli unchecked = cli("submit", "--job-id", "never-unchecked", "--gpus", "9", "--no-check", "--wait");
        assertThat(unchecked.code()).as(unchecked.err()).isEqualTo(ExitCodes.REFUSED.code());
        assertThat(unchecked.out()).startsWith("never-unchecked\n").contains("decision=REJECTED");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aShortModelAliasIsResolvedAndShownAndAnAmbiguousOneRefused() {
        final Cli h100 = cli("submit", "--job-id", "alias-h100", "--gpus", "1", "--gpu-model", "h100",
                "--simulated-runtime", "1s", "--wait=started", "--timeout", "90s");
        assertThat(h100.code()).as(h100.err()).isZero();
        assertThat(h100.err()).contains("model h100 -> NVIDIA H100 80GB HBM3");
        assertThat(h100.out()).contains("decision=PLACED");
        final Cli ambiguous = cli("submit", "--job-id", "alias-80gb", "--gpus", "1", "--gpu-model", "80GB");
        assertThat(ambiguous.code()).isEqualTo(ExitCodes.USAGE.code());
        assertThat(ambiguous.err()).contains("matches 2 models").contains("NVIDIA A100-SXM4-80GB")
                .contains("NVIDIA H100 80GB HBM3");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aJobFileWithTheFlagsNamesRunsToTheEndAndItsLogIsShown() throws Exception {
        final Path file = dir.resolve("job.yaml");
        Files.writeString(file, String.join("\n", "jobId: file-exec", "tenant: vision", "gpus: 2", "runtimeEstimate: 30m",
                "command: [sh, -c, 'echo hello from gpus $CUDA_VISIBLE_DEVICES']", ""));
        final Cli submit = cli("submit", "-f", file.toString(), "--wait=finished", "--timeout", "90s");
        assertThat(submit.code()).as(submit.err()).isZero();
        assertThat(submit.err()).contains("its output: gpupool logs file-exec");
        assertThat(submit.out()).startsWith("file-exec\n").contains("decision=RELEASED").contains("reason=COMPLETED");

        final Cli logs = cliIn(pipeline.dataDir, "logs", "file-exec");
        assertThat(logs.code()).as(logs.err()).isZero();
        assertThat(logs.out()).containsPattern("hello from gpus \\d+,\\d+");
        final Cli followed = cliIn(pipeline.dataDir, "logs", "file-exec", "--follow");
        assertThat(followed.code()).as("-f of an ended job stops at the end of its output").isZero();
        assertThat(followed.out()).isEqualTo(logs.out());

        final Cli again = cli("cancel", "file-exec");
        assertThat(again.code()).as(again.err()).isEqualTo(ExitCodes.REFUSED.code());
        assertThat(again.err()).contains("file-exec has already ended").contains("nothing to cancel");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void waitFinishedSaysWhenTheJobFailedAndASimulatedJobHasNoLog() {
        final Cli failing = cli("submit", "--job-id", "exec-fails", "--gpus", "1", "--wait=finished", "--timeout", "90s",
                "--", "sh", "-c", "exit 3");
        assertThat(failing.code()).as(failing.err()).isEqualTo(ExitCodes.JOB_FAILED.code());
        assertThat(failing.out()).contains("decision=RELEASED").contains("reason=FAILED");

        final Cli simulated = cli("submit", "--job-id", "sim-started", "--gpus", "1", "--simulated-runtime", "60s",
                "--wait=started", "--timeout", "90s");
        assertThat(simulated.code()).as(simulated.err()).isZero();
        assertThat(simulated.out()).contains("decision=PLACED");
        final Cli logs = cliIn(pipeline.dataDir, "logs", "sim-started");
        assertThat(logs.code()).isEqualTo(ExitCodes.NOT_FOUND.code());
        assertThat(logs.err()).contains("no output of job sim-started").contains("ran simulated");
        final Cli cancel = cli("cancel", "sim-started", "--wait");
        assertThat(cancel.code()).as(cancel.err()).isZero();
        assertThat(cancel.out()).contains("decision=CANCELLED");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aCommandThatASimulatingSinkWillNotRunIsSaidSo() {
        // the data directory of a stack whose sink simulates, as `gpupool up` without --exec-jobs describes it
        final Path simulating = dir.resolve("simulating");
        LocalSink.publish(simulating, stack.bootstrapServers(), false);
        final Cli submit = cliIn(simulating, "submit", "--job-id", "sim-note", "--gpus", "1", "--wait", "--timeout", "90s",
                "--", "true");
        assertThat(submit.code()).as(submit.err()).isZero();
        assertThat(submit.err()).contains("the local sink simulates jobs").contains("--exec-jobs");
        assertThat(submit.out()).contains("decision=PLACED").contains("note=simulated: the local sink does not run the command");
    }

    private Cli cli(final String... args) {
        return pipeline.cli(args);
    }

    private Cli cliIn(final Path dataDir, final String... args) {
        return LocalPipeline.cliWith(args[0].equals("logs") ? List.of("--data-dir", dataDir.toString()) : pipeline.options(dataDir),
                args);
    }
}
