package io.gpupool.sink.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exec applier with real bash processes: environment, exit codes, SIGTERM, grace, SIGKILL of the tree. */
class ExecApplierTest {

    @TempDir
    Path dir;

    private ExecApplier applier;
    private final RecordingObserver observer = new RecordingObserver();

    private ExecApplier applier(final Duration grace) {
        applier = new ExecApplier(CommandTemplate.jobCommand(), grace, dir.resolve("logs"));
        return applier;
    }

    @AfterEach
    void closeApplier() {
        if (applier != null) {
            applier.close();
        }
    }

    private Path script(final String name, final String body) throws IOException {
        final Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/bash\n" + body);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    @Test
    void processSeesItsGpusJobIdNodeEnvAndArgs() throws Exception {
        final Path out = dir.resolve("env.txt");
        final Path s = script("env.sh", "{ echo \"job=$GPUPOOL_JOB_ID\"; echo \"node=$GPUPOOL_NODE\";"
                + " echo \"cuda=$CUDA_VISIBLE_DEVICES\"; echo \"uuids=$GPUPOOL_GPU_UUIDS\"; echo \"mine=$MY_VAR\";"
                + " echo \"args=$*\"; } > " + out + "\n");
        final JobPart part = new JobPart("job-1", "node-7", "dec-1", "dec-1", "cmd-1", "n", "t", List.of(1, 3),
                List.of("GPU-aaa", "GPU-bbb"), 0, List.of("node-7"), List.of(s.toString(), "first"),
                List.of("second"), Map.of("MY_VAR", "hello", "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"),
                Optional.empty(), Optional.empty());
        applier(Duration.ofSeconds(5)).allocate(part, observer);
        final Outcome outcome = observer.awaitEnd(part, Duration.ofSeconds(20));
        assertThat(outcome.success()).isTrue();
        assertThat(observer.pids.get("cmd-1")).isPositive();
        // The job's own env cannot widen its GPU set: gpupool's CUDA_VISIBLE_DEVICES wins.
        assertThat(Files.readAllLines(out)).containsExactly("job=job-1", "node=node-7", "cuda=1,3",
                "uuids=GPU-aaa,GPU-bbb", "mine=hello", "args=first second");
    }

    @Test
    void aJobRunsInItsOwnProcessGroupUnderItsOwnPid() throws Exception {
        final Path out = dir.resolve("ids.txt");
        // Field 5 of /proc/self/stat is the process group; $$ is the shell's pid.
        final Path s = script("ids.sh", "echo \"$$ $(cut -d' ' -f5 /proc/$$/stat)\" > " + out + "\n");
        final JobPart part = Parts.part("job-g", "n1", List.of(0), List.of(s.toString()), Map.of(), null);
        applier(Duration.ofSeconds(5)).allocate(part, observer);
        observer.awaitEnd(part, Duration.ofSeconds(20));
        final String[] ids = Files.readString(out).trim().split(" ");
        assertThat(Long.parseLong(ids[0])).as("the pid the sink watches is the job's").isEqualTo(observer.pids.get(part.commandId()));
        assertThat(ids[1]).as("own group: a Ctrl-C to the sink's terminal does not reach the job").isEqualTo(ids[0]);
    }

    @Test
    void nonZeroExitIsAFailureWithItsCode() throws Exception {
        final Path s = script("fail.sh", "echo broken >&2\nexit 7\n");
        final JobPart part = Parts.part("job-2", "n1", List.of(0), List.of(s.toString()), Map.of(), null);
        applier(Duration.ofSeconds(5)).allocate(part, observer);
        final Outcome outcome = observer.awaitEnd(part, Duration.ofSeconds(20));
        assertThat(outcome.failed()).isTrue();
        assertThat(outcome.exitCode()).hasValue(7);
        assertThat(Files.readString(dir.resolve("logs/job-2_n1.log"))).contains("broken");
    }

    @Test
    void stopSendsSigtermToTheTreeAndTheTrapRuns() throws Exception {
        final Path marker = dir.resolve("term.txt");
        final Path childPid = dir.resolve("child.pid");
        // bash waits on a child; SIGTERM to the whole tree ends the sleep, so the trap runs at once.
        final Path s = script("trap.sh", "trap 'echo terminated > " + marker + "; exit 0' TERM\n"
                + "sleep 1000 &\necho $! > " + childPid + "\nwait\n");
        final JobPart part = Parts.part("job-3", "n1", List.of(0), List.of(s.toString()), Map.of(), null);
        applier(Duration.ofSeconds(10)).allocate(part, observer);
        final long child = awaitPid(childPid);
        final ProcessHandle root = applier.processOf(part).orElseThrow();

        final Optional<Outcome> outcome = applier.stop(part, "cancelled");

        assertThat(outcome).isPresent();
        // Ended by the SIGTERM within its 10 s grace: no SIGKILL was needed.
        assertThat(outcome.get().reason()).hasValueSatisfying(r -> assertThat(r).contains("cancelled", "SIGTERM")
                .doesNotContain("SIGKILL"));
        assertThat(Files.readString(marker).trim()).isEqualTo("terminated");
        assertThat(ProcessTree.alive(root)).isFalse();
        assertThat(ProcessHandle.of(child).map(ProcessTree::alive).orElse(false)).isFalse();
        assertThat(observer.ended(part)).as("a stopped part is settled by stop, not by the observer").isFalse();
    }

    @Test
    void stopKillsTheTreeWhenSigtermIsIgnoredAfterTheGracePeriod() throws Exception {
        final Path marker = dir.resolve("ignored.txt");
        final Path childPid = dir.resolve("child.pid");
        final Path s = script("stubborn.sh", "trap 'echo ignored >> " + marker + "' TERM\n"
                + "bash -c 'trap \"\" TERM; sleep 1000' &\necho $! > " + childPid + "\n"
                + "while true; do sleep 0.1; done\n");
        final JobPart part = Parts.part("job-4", "n1", List.of(0), List.of(s.toString()), Map.of(), null);
        final Duration grace = Duration.ofMillis(1500);
        applier(grace).allocate(part, observer);
        final long child = awaitPid(childPid);
        final ProcessHandle root = applier.processOf(part).orElseThrow();

        final Optional<Outcome> outcome = applier.stop(part, "evicted: Xid 79");

        // SIGTERM first (the trap logged it), SIGKILL only when it was ignored.
        assertThat(outcome.get().reason()).hasValueSatisfying(r -> assertThat(r).contains("SIGKILL"));
        assertThat(outcome.get().exitCode()).hasValue(137);
        assertThat(Files.readString(marker)).contains("ignored");
        assertThat(ProcessTree.alive(root)).isFalse();
        assertThat(ProcessHandle.of(child).map(ProcessTree::alive).orElse(false)).isFalse();
    }

    @Test
    void aProgramThatCannotStartFailsTheAllocate() {
        final JobPart part = Parts.part("job-5", "n1", List.of(0), List.of(dir.resolve("missing").toString()),
                Map.of(), null);
        assertThatThrownBy(() -> applier(Duration.ofSeconds(1)).allocate(part, observer)).isInstanceOf(IOException.class);
        assertThat(applier.runningCount()).isZero();
    }

    @Test
    void aJobWithoutCommandIsPermanentlyBad() {
        final JobPart part = Parts.part("job-6", "n1", List.of(0), List.of(), Map.of(), null);
        assertThatThrownBy(() -> applier(Duration.ofSeconds(1)).allocate(part, observer))
                .isInstanceOf(PermanentApplyException.class).hasMessageContaining("no command");
    }

    @Test
    void recoverAdoptsALiveProcessAndReportsALostOne() throws Exception {
        final Process other = new ProcessBuilder("sleep", "1000").start();
        try {
            final long start = other.toHandle().info().startInstant().orElseThrow().toEpochMilli();
            final JobPart adopted = Parts.part("job-7", "n1", List.of(0), List.of("x"), Map.of(), null);
            final JobPart lost = Parts.part("job-8", "n1", List.of(1), List.of("x"), Map.of(), null);
            applier(Duration.ofMillis(500)).recover(adopted, other.pid(), start, observer);
            applier.recover(lost, other.pid(), start - 60_000, observer); // same pid, other start: not the same process
            assertThat(observer.awaitEnd(lost, Duration.ofSeconds(5)).failed()).isTrue();
            assertThat(applier.processOf(adopted)).isPresent();

            other.destroy();
            final Outcome end = observer.awaitEnd(adopted, Duration.ofSeconds(10));
            assertThat(end.failed()).isFalse();
            assertThat(end.exitCode()).isEmpty();
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void anAdoptedOrphanThatExitsIsSeenToEnd() throws Exception {
        // An orphan like a job left behind by a killed sink: its parent exits, it is re-parented.
        // Its output goes elsewhere, or reading the pid would wait for it to end; 3 s keeps it alive
        // until it is recovered, even on a loaded machine.
        final Process launcher = new ProcessBuilder("bash", "-c", "sleep 3 >/dev/null 2>&1 & echo $!").start();
        final long orphan = Long.parseLong(new String(launcher.getInputStream().readAllBytes()).trim());
        launcher.waitFor();
        final ProcessHandle h = ProcessHandle.of(orphan).orElseThrow();
        final long start = h.info().startInstant().orElseThrow().toEpochMilli();
        final JobPart adopted = Parts.part("job-9", "n1", List.of(0), List.of("x"), Map.of(), null);
        final JobPart gone = Parts.part("job-10", "n1", List.of(1), List.of("x"), Map.of(), null);
        applier(Duration.ofMillis(500)).recover(adopted, orphan, start, observer);
        applier.recover(gone, 999_999_999L, start, observer); // no such process
        assertThat(observer.awaitEnd(gone, Duration.ofSeconds(5)).failed()).isTrue();
        assertThat(observer.awaitEnd(adopted, Duration.ofSeconds(15)).failed()).isFalse();
    }

    private static long awaitPid(final Path file) {
        return Long.parseLong(await("a pid in " + file).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> Files.exists(file) ? Files.readString(file).trim() : "", s -> !s.isEmpty()));
    }
}
