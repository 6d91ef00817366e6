package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.app.SchedulerMain;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** {@link SchedulerMain} in a child JVM, so a test can kill it with SIGKILL mid-stream. */
final class ChildScheduler implements AutoCloseable {
    private final Process process;
    private final List<String> output = new ArrayList<>();
    private volatile int httpPort = -1;

    private ChildScheduler(final Process process) {
        this.process = process;
    }

    static ChildScheduler start(final List<String> args, final Path log) throws Exception {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx384m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1"); // a test child lives for seconds: the optimizing compiler would not pay back
        // the test JVM's temporary directory (the module's target/): a killed child leaves the native library RocksDB
        // extracted at its start (15 MB) behind
        cmd.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(SchedulerMain.class.getName());
        cmd.addAll(args);
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(false)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return new ChildScheduler(p);
    }

    /** Waits for the READY line. */
    void awaitReady(final Duration timeout) throws Exception {
        final BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        final CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (output) {
                        output.add(line);
                    }
                    if (line.startsWith("READY")) {
                        httpPort = Integer.parseInt(line.substring("READY".length()).trim());
                        return true;
                    }
                    if (line.startsWith("FAILED")) {
                        return false;
                    }
                }
                return false;
            } catch (Exception e) {
                return false;
            }
        });
        if (!ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("child scheduler did not get ready: " + output);
        }
    }

    /** The port of its queries, /metrics and /health, once ready. */
    int httpPort() {
        return httpPort;
    }

    /** SIGKILL: no shutdown hook, no clean close, an open transaction left behind. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(40, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
