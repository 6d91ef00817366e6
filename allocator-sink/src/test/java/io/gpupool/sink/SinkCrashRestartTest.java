package io.gpupool.sink;

import io.gpupool.avro.JobEvent;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

import static io.gpupool.sink.SinkTestKit.allocate;
import static io.gpupool.sink.SinkTestKit.count;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sink JVM killed with SIGKILL in the middle of a poll batch (commands applied, offsets not yet
 * committed) and started again on the same ledger: the redelivered commands start no job twice.
 */
@ExtendWith(LocalStackExtension.class)
@Execution(ExecutionMode.CONCURRENT)
class SinkCrashRestartTest {

    private static final int JOBS = 16;

    @TempDir
    Path dir;

    @Test
    void aSinkKilledAndRestartedAppliesNothingTwice(final TestStack stack) throws Exception {
        final Path runs = dir.resolve("runs.txt");
        final Path job = dir.resolve("job.sh");
        Files.writeString(job, "#!/bin/bash\necho \"$GPUPOOL_JOB_ID\" >> " + runs + "\n");
        Files.setPosixFilePermissions(job, PosixFilePermissions.fromString("rwx------"));
        final Path state = dir.resolve("state");
        final String group = stack.uniqueName("crash-sink");
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            // All commands are there before the sink starts, so its first poll takes them in one batch,
            // and the batch is committed only at its end: a kill midway leaves applied, uncommitted commands.
            for (int i = 0; i < JOBS; i++) {
                kit.send(allocate("job-" + i, "n1", 0, List.of(job.toString()), i % 8));
            }
            final Process first = child(kit, group, state, 400);
            try {
                kit.eventsUntil(ev -> ev.stream().filter(e -> e.getType().name().equals("STARTED")).count() >= 4,
                        Duration.ofSeconds(60));
            } finally {
                first.destroyForcibly(); // SIGKILL: no shutdown hook, no commit
                first.waitFor(30, TimeUnit.SECONDS);
            }
            final int ranBeforeKill = lines(runs).size();
            assertThat(ranBeforeKill).as("killed part-way").isBetween(1, JOBS - 1);

            final Process second = child(kit, group, state, 0);
            try {
                final List<JobEvent> events = kit.eventsUntil(ev -> {
                    for (int i = 0; i < JOBS; i++) {
                        final String id = "job-" + i;
                        if (count(ev, id, "COMPLETED") + count(ev, id, "FAILED") == 0) {
                            return false;
                        }
                    }
                    return true;
                }, Duration.ofSeconds(90));
                final List<String> ran = lines(runs);
                for (int i = 0; i < JOBS; i++) {
                    final String id = "job-" + i;
                    final long times = ran.stream().filter(id::equals).count();
                    assertThat(times).as("%s ran", id).isLessThanOrEqualTo(1);
                    assertThat(count(events, id, "APPLIED")).as("%s APPLIED events", id).isLessThanOrEqualTo(1);
                    assertThat(count(events, id, "STARTED")).as("%s STARTED events", id).isLessThanOrEqualTo(1);
                    // Only a kill between recording and starting may leave a job unrun, and then it is reported FAILED.
                    if (times == 0) {
                        assertThat(count(events, id, "FAILED")).as("%s never ran", id).isEqualTo(1);
                    }
                }
                assertThat(ran).hasSizeGreaterThan(JOBS - 2);
            } finally {
                second.destroyForcibly();
                second.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static List<String> lines(final Path p) throws Exception {
        return Files.exists(p) ? Files.readAllLines(p).stream().filter(s -> !s.isBlank()).collect(Collectors.toList())
                : List.of();
    }

    private Process child(final SinkTestKit kit, final String group, final Path state, final long delayMillis)
            throws Exception {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-XX:TieredStopAtLevel=1"); // a test child lives for seconds: the optimizing compiler would not pay back
        // the test JVM's temporary directory (the module's target/), for whatever a killed child leaves behind
        cmd.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
        cmd.add("-cp");
        cmd.add(classpath());
        cmd.add(SinkChildMain.class.getName());
        cmd.addAll(List.of(kit.stack.bootstrapServers(), kit.stack.requireRegistryUrl(), kit.commands, kit.events,
                kit.dlq, group, state.toString(), Long.toString(delayMillis)));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final CountDownLatch ready = new CountDownLatch(1);
        // Kept under target/ (not the temp dir) so a failure can be read afterwards.
        final Path log = Path.of("target", "sink-child-" + p.pid() + ".log").toAbsolutePath();
        final Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Files.writeString(log, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                    if (line.equals("READY")) {
                        ready.countDown();
                    }
                }
            } catch (final Exception ignored) {
                // the child was killed
            }
        });
        pump.setDaemon(true);
        pump.start();
        if (!ready.await(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("sink child did not start: " + (Files.exists(log) ? Files.readString(log) : ""));
        }
        return p;
    }

    private static String classpath() {
        return List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
                .map(e -> Path.of(e).toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator));
    }
}
