package io.gpupool.deploy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The scheduler stream as a child JVM on this test's classpath, through its main class
 * ({@code --bootstrap --registry --state-dir --http-port}; prints {@code READY <port>} once
 * Kafka Streams runs). Empty when the class is not on the classpath (the stream has not landed).
 */
final class SchedulerProcess implements AutoCloseable {
    private final Process process;
    private final int httpPort;

    private SchedulerProcess(final Process process, final int httpPort) {
        this.process = process;
        this.httpPort = httpPort;
    }

    static Optional<SchedulerProcess> startIfPresent(final String mainClass, final String bootstrap, final String registry,
            final Path stateDir, final Map<String, String> engineSettings) throws Exception {
        try {
            Class.forName(mainClass, false, SchedulerProcess.class.getClassLoader());
        } catch (final ClassNotFoundException absent) {
            return Optional.empty();
        }
        final int port = FreePort.find();
        final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        final List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), mainClass, "--bootstrap", bootstrap, "--registry", registry,
                "--state-dir", stateDir.toString(), "--http-port", Integer.toString(port)));
        engineSettings.forEach((k, v) -> command.addAll(List.of("--engine." + k, v)));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final SchedulerProcess s = new SchedulerProcess(p, port);
        final CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> s.readUntilReady());
        try {
            if (!ready.get(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the scheduler exited before READY");
            }
        } catch (final Exception e) {
            s.close();
            throw e;
        }
        return Optional.of(s);
    }

    /** Reads output until READY; keeps draining it afterwards so the child never blocks on a full pipe. */
    private boolean readUntilReady() {
        final BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("READY")) {
                    final Thread drain = new Thread(() -> {
                        try {
                            while (r.readLine() != null) {
                                // discard
                            }
                        } catch (final IOException ignored) {
                            // the child ended
                        }
                    }, "scheduler-output");
                    drain.setDaemon(true);
                    drain.start();
                    return true;
                }
            }
            return false;
        } catch (final IOException e) {
            return false;
        }
    }

    int httpPort() {
        return httpPort;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
