package io.gpupool.bench.restart;

import io.gpupool.scheduler.app.SchedulerMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The scheduler ({@link SchedulerMain}) as a child JVM of this one, same java and class path, so that it can be
 * killed with SIGKILL ({@link Process#destroyForcibly()} on Linux) or paused with SIGSTOP, as a real crash or stall.
 * Its stderr (the log) is appended to a file.
 */
public final class SchedulerProcess implements AutoCloseable {
    private final Process process;
    private final CompletableFuture<String> ready;

    private SchedulerProcess(final Process process) {
        this.process = process;
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("READY") || line.startsWith("FAILED")) {
                        return line;
                    }
                }
                return "EXITED";
            } catch (IOException e) {
                return "EXITED " + e.getMessage();
            }
        });
    }

    /** Starts {@link SchedulerMain} with these arguments ({@code --name value} pairs). */
    public static SchedulerProcess start(final List<String> args, final Path log) throws IOException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx512m");
        cmd.add("-XX:+UseSerialGC");
        // a short-lived JVM: C1 only starts faster and the scheduler's load here is light
        cmd.add("-XX:TieredStopAtLevel=1");
        // temporary files in the run's directory, beside the log, which the bench deletes: a killed child leaves the
        // native library RocksDB extracted at its start (15 MB) behind, and /tmp would keep it
        cmd.add("-Djava.io.tmpdir=" + log.toAbsolutePath().getParent());
        // timestamps and Kafka Streams' state changes and restores in the log: where a restart's seconds go
        cmd.addAll(List.of("-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                "-Dorg.slf4j.simpleLogger.log.io.gpupool=info",
                "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.streams.KafkaStreams=info",
                "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.streams.processor.internals.StreamThread=info",
                "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.streams.processor.internals.StoreChangelogReader=info"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(SchedulerMain.class.getName());
        cmd.addAll(args);
        return new SchedulerProcess(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start());
    }

    /** Waits for the READY line (Kafka Streams RUNNING); throws when the process says FAILED or ends. */
    public void awaitReady(final Duration timeout) throws Exception {
        final String line = ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!line.startsWith("READY")) {
            throw new IllegalStateException("the scheduler child did not get ready: " + line);
        }
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL: no shutdown hook, no clean close, a transaction left open. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGSTOP ({@code STOP}) or SIGCONT ({@code CONT}): the process freezes as in a long pause, and later goes on. */
    public void signal(final String name) throws IOException, InterruptedException {
        if (!process.isAlive()) {
            return; // nothing to signal, and the pid may be another process's by now
        }
        final Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    /** SIGTERM and a clean close (up to 40 s), then SIGKILL. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(40, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
