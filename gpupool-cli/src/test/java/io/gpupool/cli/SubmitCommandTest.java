package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.avro.JobRequest;
import io.gpupool.avro.NetworkRequirement;
import io.gpupool.avro.TopologyMode;
import io.gpupool.avro.TopologyScope;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.submit.JobSubmission;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code gpupool submit} and {@code cancel}: every flag and file field lands in the JobRequest; bad input says the fix. */
class SubmitCommandTest {

    @TempDir
    Path dir;

    private static JobSubmission parse(final String... args) {
        final SubmitCommand cmd = new SubmitCommand();
        new CommandLine(cmd).parseArgs(args);
        return JobSubmission.build(cmd.file, cmd.jobId, cmd.job, "alice");
    }

    @Test
    void everyFlagSetsItsField() {
        final JobSubmission s = parse("--job-id", "train-7", "--name", "resnet", "--tenant", "vision", "--queue", "q1",
                "--label", "team=cv", "--label", "run=3", "--pool", "p1", "--priority-class", "production", "--priority", "90",
                "--preemptible", "--nodes", "2", "--gpus", "8", "--gpu-memory-mib", "40000", "--cpu-milli", "16000",
                "--memory-mib", "65536", "--gpu-model", "NVIDIA H100 80GB HBM3,NVIDIA A100-SXM4-80GB", "--network", "infiniband",
                "--topology", "same-leaf", "--topology-mode", "required", "--deadline", "2030-01-02T03:04:05Z",
                "--reject-if-late", "--runtime-estimate", "2h", "--simulated-runtime", "90m", "--env", "A=1", "--workdir",
                "/tmp", "--grace", "20s", "--arg", "--epochs=3", "--", "python", "train.py");
        final JobRequest r = s.request();
        assertThat(s.jobId()).isEqualTo("train-7");
        assertThat(r.getName()).isEqualTo("resnet");
        assertThat(r.getTenant()).isEqualTo("vision");
        assertThat(r.getQueue()).isEqualTo("q1");
        assertThat(r.getLabels()).containsExactlyInAnyOrderEntriesOf(Map.of("team", "cv", "run", "3"));
        assertThat(r.getPool()).isEqualTo("p1");
        assertThat(r.getPriorityClass()).isEqualTo("production");
        assertThat(r.getPriority()).isEqualTo(90);
        assertThat(r.getPreemptible()).isTrue();
        assertThat(r.getNodes()).isEqualTo(2);
        assertThat(r.getGpusPerNode()).isEqualTo(8);
        assertThat(r.getGpuMilli()).isNull();
        assertThat(r.getGpuMemoryMiB()).isEqualTo(40_000L);
        assertThat(r.getCpuMilliPerNode()).isEqualTo(16_000L);
        assertThat(r.getMemoryMiBPerNode()).isEqualTo(65_536L);
        assertThat(r.getGpuModels()).containsExactly("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB");
        assertThat(r.getNetwork()).isEqualTo(NetworkRequirement.INFINIBAND);
        assertThat(r.getTopology()).isEqualTo(TopologyScope.SAME_LEAF);
        assertThat(r.getTopologyMode()).isEqualTo(TopologyMode.REQUIRED);
        assertThat(r.getDeadline()).isEqualTo(Instant.parse("2030-01-02T03:04:05Z"));
        assertThat(r.getRejectIfDeadlineMissed()).isTrue();
        assertThat(r.getRuntimeEstimateMillis()).isEqualTo(7_200_000L);
        assertThat(r.getSimulatedRuntimeMillis()).isEqualTo(5_400_000L);
        assertThat(r.getExec().getCommand()).containsExactly("python", "train.py");
        assertThat(r.getExec().getArgs()).containsExactly("--epochs=3");
        assertThat(r.getExec().getEnv()).containsEntry("A", "1");
        assertThat(r.getExec().getWorkingDir()).isEqualTo("/tmp");
        assertThat(r.getExec().getGracePeriodMillis()).isEqualTo(20_000L);
    }

    @Test
    void defaultsFillWhatIsNotGiven() {
        final JobSubmission s = parse("--gpu-milli", "250", "--deadline", "+2h");
        assertThat(s.request().getTenant()).isEqualTo("alice");
        assertThat(s.request().getPool()).isEqualTo("default");
        assertThat(s.jobId()).startsWith("alice-");
        assertThat(s.request().getName()).isEqualTo(s.jobId());
        assertThat(s.request().getGpuMilli()).isEqualTo(250);
        assertThat(s.request().getDeadline()).isAfter(Instant.now().plusSeconds(7_100));
        assertThat(s.request().getExec()).isNull();
    }

    @Test
    void aJobFileUsesTheFlagsNamesAndUnits() throws Exception {
        final Path file = dir.resolve("flags.yaml");
        Files.writeString(file, String.join("\n",
                "jobId: cv-1", "tenant: vision", "nodes: 2", "gpus: 8", "gpuMemoryMib: 40000", "cpuMilli: 16000",
                "memoryMib: 65536", "gpuModel: NVIDIA H100 80GB HBM3", "rejectIfLate: true", "deadline: 2030-01-02T03:04:05Z",
                "runtimeEstimate: 30m", "simulatedRuntime: 90s", "command: [python, train.py]", "args: [--epochs, '3']",
                "env: {A: '1'}", "workdir: /tmp", "grace: 20s", ""));
        final JobRequest r = parse("-f", file.toString()).request();
        assertThat(r.getGpusPerNode()).isEqualTo(8);
        assertThat(r.getGpuMemoryMiB()).isEqualTo(40_000L);
        assertThat(r.getCpuMilliPerNode()).isEqualTo(16_000L);
        assertThat(r.getMemoryMiBPerNode()).isEqualTo(65_536L);
        assertThat(r.getGpuModels()).containsExactly("NVIDIA H100 80GB HBM3");
        assertThat(r.getRejectIfDeadlineMissed()).isTrue();
        assertThat(r.getRuntimeEstimateMillis()).isEqualTo(1_800_000L);
        assertThat(r.getSimulatedRuntimeMillis()).isEqualTo(90_000L);
        assertThat(r.getExec().getCommand()).containsExactly("python", "train.py");
        assertThat(r.getExec().getArgs()).containsExactly("--epochs", "3");
        assertThat(r.getExec().getEnv()).containsEntry("A", "1");
        assertThat(r.getExec().getWorkingDir()).isEqualTo("/tmp");
        assertThat(r.getExec().getGracePeriodMillis()).isEqualTo(20_000L);
    }

    @Test
    void theExampleJobFileIsAValidJob() throws Exception {
        final CliRun example = CliRun.of("submit", "--example");
        assertThat(example.exitCode()).isZero();
        assertThat(example.out()).contains("# ").contains("gpus: 8").contains("runtimeEstimate: 2h");
        final Path file = dir.resolve("example.yaml");
        Files.writeString(file, example.out());
        final JobRequest r = parse("-f", file.toString()).request();
        assertThat(r.getNodes()).isEqualTo(2);
        assertThat(r.getGpusPerNode()).isEqualTo(8);
        assertThat(r.getRuntimeEstimateMillis()).isEqualTo(7_200_000L);
        assertThat(r.getExec().getCommand()).containsExactly("python", "train.py");
    }

    @Test
    void theSchemasOldNamesAreStillRead() throws Exception {
        final Path file = dir.resolve("job.yaml");
        Files.writeString(file, String.join("\n",
                "jobId: llm-42",
                "tenant: llm",
                "pool: default",
                "nodes: 2",
                "gpusPerNode: 8",
                "priorityClass: batch",
                "preemptible: true",
                "gpuModels: [NVIDIA H100 80GB HBM3]",
                "network: infiniband",
                "topology: same-leaf",
                "topologyMode: required",
                "runtimeEstimateMillis: 3h",
                "labels: {project: x}",
                "exec:",
                "  command: [torchrun, train.py]",
                "  env: {NCCL_DEBUG: INFO}",
                "  gracePeriodMillis: 30000",
                ""));
        final JobSubmission s = parse("-f", file.toString(), "--priority-class", "production", "--label", "run=2");
        final JobRequest r = s.request();
        assertThat(s.jobId()).isEqualTo("llm-42");
        assertThat(r.getTenant()).isEqualTo("llm");
        assertThat(r.getNodes()).isEqualTo(2);
        assertThat(r.getGpusPerNode()).isEqualTo(8);
        assertThat(r.getPriorityClass()).as("the flag overrides the file").isEqualTo("production");
        assertThat(r.getPreemptible()).isTrue();
        assertThat(r.getGpuModels()).containsExactly("NVIDIA H100 80GB HBM3");
        assertThat(r.getNetwork()).isEqualTo(NetworkRequirement.INFINIBAND);
        assertThat(r.getTopology()).isEqualTo(TopologyScope.SAME_LEAF);
        assertThat(r.getTopologyMode()).isEqualTo(TopologyMode.REQUIRED);
        assertThat(r.getRuntimeEstimateMillis()).isEqualTo(10_800_000L);
        assertThat(r.getLabels()).containsEntry("project", "x").containsEntry("run", "2");
        assertThat(r.getExec().getCommand()).containsExactly("torchrun", "train.py");
        assertThat(r.getExec().getEnv()).containsEntry("NCCL_DEBUG", "INFO");
        assertThat(r.getExec().getGracePeriodMillis()).isEqualTo(30_000L);
    }

    @Test
    void aJsonFileWorksToo() throws Exception {
        final Path file = dir.resolve("job.json");
        Files.writeString(file, "{\"tenant\": \"speech\", \"gpuMilli\": 500, \"gpuMemoryMiB\": 20000, \"deadline\": \"2030-01-01T00:00:00Z\"}");
        final JobRequest r = parse("-f", file.toString()).request();
        assertThat(r.getTenant()).isEqualTo("speech");
        assertThat(r.getGpuMilli()).isEqualTo(500);
        assertThat(r.getGpuMemoryMiB()).isEqualTo(20_000L);
        assertThat(r.getDeadline()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
    }

    @Test
    void fileMistakesNameTheFieldAndTheFix() throws Exception {
        final Path typo = dir.resolve("typo.yaml");
        Files.writeString(typo, "tenant: a\ngpu: 2\n");
        assertThatThrownBy(() -> parse("-f", typo.toString())).hasMessageContaining("unknown field 'gpu'")
                .hasMessageContaining("gpus, gpuMilli").hasMessageContaining("--example");
        final Path wrongType = dir.resolve("type.json");
        Files.writeString(wrongType, "{\"tenant\": \"a\", \"gpus\": \"eight\"}");
        assertThatThrownBy(() -> parse("-f", wrongType.toString())).hasMessageContaining("'gpus' must be a whole number");
        final Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"tenant\": ");
        assertThatThrownBy(() -> parse("-f", broken.toString())).hasMessageContaining("is not valid JSON");
    }

    @Test
    void badFlagsFailBeforeAnythingIsSentWithTheFix() {
        final Path noStack = dir.resolve("no-stack");
        final List<String[]> cases = List.of(
                new String[] {"--gpus", "0"}, new String[] {"--gpu-milli", "1500"},
                new String[] {"--gpu-milli", "500", "--nodes", "2"}, new String[] {"--gpus", "1", "--network", "ethernet"},
                new String[] {"--gpus", "1", "--priority-class", "urgent"}, new String[] {"--gpus", "1", "--job-id", "bad id!"},
                new String[] {"--gpus", "1", "--topology-mode", "required"}, new String[] {"--gpus", "1", "--deadline", "tomorrow"},
                new String[] {"-f", dir.resolve("missing.yaml").toString()}, new String[] {"--gpus", "-1"},
                new String[] {"--gpus", "1", "--gpu-milli", "250"}, new String[] {"--gpus", "1", "--wait=sometime"});
        final List<String> fixes = List.of("give --gpus N", "use 1-999", "runs on one node", "use one of any, infiniband, roce",
                "use production, batch or best-effort", "is malformed", "add --topology same-node", "nor a time from now (+2h)",
                "is not a file", "must be >= 1", "give one of them", "use --wait (the first decision), --wait=started");
        for (int i = 0; i < cases.size(); i++) {
            final String[] args = new String[cases.get(i).length + 3];
            args[0] = "submit";
            System.arraycopy(cases.get(i), 0, args, 1, cases.get(i).length);
            args[args.length - 2] = "--data-dir";
            args[args.length - 1] = noStack.toString();
            final CliRun run = CliRun.of(args);
            assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE.code());
            assertThat(run.err()).as(String.join(" ", args)).contains(fixes.get(i)).doesNotContain("Exception")
                    .as("the fix, not the option list").doesNotContain("Options of").hasLineCount(2);
        }
    }

    @Test
    void withoutAStackTheMessageSaysHowToStartOne() {
        final CliRun submit = CliRun.of("submit", "--gpus", "1", "--data-dir", dir.resolve("none").toString());
        assertThat(submit.exitCode()).isNotZero();
        assertThat(submit.err()).contains("no local stack runs in").contains("gpupool up").contains("--bootstrap-server");
        final CliRun cancel = CliRun.of("cancel", "bad id!", "--data-dir", dir.resolve("none").toString());
        assertThat(cancel.exitCode()).isNotZero();
        assertThat(cancel.err()).contains("is malformed").contains("gpupool queue");
    }
}
