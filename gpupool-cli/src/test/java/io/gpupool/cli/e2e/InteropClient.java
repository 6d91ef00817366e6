package io.gpupool.cli.e2e;

import io.gpupool.cli.up.PipelineParts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One of the scripts in {@code interop/}, run as its users run it: a process of Node or of Debian's Python,
 * told by its environment where gpupool is. It prints one {@code STEP <name> PASS|FAIL <detail>} line per
 * check. Without node (or its {@code npm ci}) or the Python package a test skips with the reason; with CI
 * set it fails, since CI installs them.
 */
final class InteropClient {
    static final Duration WAIT = Duration.ofSeconds(90);
    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    private final String name;
    private final List<String> command;
    private final Path dir;

    private InteropClient(final String name, final List<String> command, final Path dir) {
        this.name = name;
        this.command = command;
        this.dir = dir;
    }

    /** {@code interop/node/interop.mjs}: Confluent's JavaScript serde with kafkajs. */
    static InteropClient node() {
        final Path dir = interopDir().resolve("node");
        final String node = require("node", List.of("node", "--version"),
                "install Node.js and npm (Debian: apt-get install nodejs npm)");
        requireThat(Files.isDirectory(dir.resolve("node_modules/@confluentinc/schemaregistry"))
                        && Files.isDirectory(dir.resolve("node_modules/kafkajs")),
                "the Node clients are not installed: run `npm ci` in " + dir);
        return new InteropClient("node", List.of(node, "interop.mjs"), dir);
    }

    /** {@code interop/python/interop.py}: Debian's confluent-kafka for Python with its legacy Avro serde. */
    static InteropClient python() {
        final String python = python3();
        require(python, List.of(python, "-c", "import confluent_kafka.avro"),
                "install Debian's python3-confluent-kafka python3-avro python3-requests (apt-get install), or point"
                        + " GPUPOOL_PYTHON at a python3 that has confluent_kafka with its avro extra");
        return new InteropClient("python", List.of(python, "interop.py"), interopDir().resolve("python"));
    }

    String name() {
        return name;
    }

    /** What the client's runtime (node, python3) prints for these arguments, e.g. a library's version. */
    String runtime(final String... args) {
        final List<String> asked = new ArrayList<>(List.of(command.get(0)));
        asked.addAll(List.of(args));
        final String out = probe(asked);
        assertThat(out).as("`%s`", String.join(" ", asked)).isNotNull();
        return out.strip();
    }

    /** What every run is told: where the broker and the registry are, the topics' prefix, the pool, its job ids' prefix. */
    static Map<String, String> environment(final String bootstrap, final String registry, final String topicPrefix,
            final String run) {
        final Map<String, String> env = new HashMap<>();
        env.put("GPUPOOL_BOOTSTRAP", bootstrap);
        env.put("GPUPOOL_REGISTRY", registry);
        env.put("GPUPOOL_TOPIC_PREFIX", topicPrefix);
        env.put("GPUPOOL_POOL", PipelineParts.POOL);
        env.put("GPUPOOL_RUN", run);
        env.put("GPUPOOL_WAIT_S", Long.toString(WAIT.toSeconds()));
        return env;
    }

    /** Runs the script with this environment on top of the test's; its output once it has ended. */
    Output run(final Map<String, String> environment) throws Exception {
        final ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(environment);
        final Process p = pb.start();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Thread reader = new Thread(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (IOException ignored) {
                // the process ended
            }
        });
        reader.start();
        final boolean ended = p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        reader.join(5_000);
        final String text = out.toString(StandardCharsets.UTF_8);
        System.out.println("---- " + name + " client ----\n" + text);
        assertThat(ended).as("%s client ended within %s s:%n%s", name, TIMEOUT.toSeconds(), text).isTrue();
        return new Output(name, p.exitValue(), text);
    }

    /** A run's exit code and what it printed. */
    record Output(String client, int exitCode, String text) {

        /** The STEP lines, in the order printed. */
        List<String> steps() {
            return text.lines().filter(l -> l.startsWith("STEP ")).toList();
        }

        /** Every check passed, these among them, and the client said so. */
        void assertAllPass(final String... required) {
            assertThat(exitCode).as("%s client:%n%s", client, text).isZero();
            assertThat(steps()).as("%s client's checks:%n%s", client, text).isNotEmpty()
                    .allSatisfy(s -> assertThat(s).matches("STEP \\S+ PASS.*"));
            for (final String step : required) {
                assertThat(steps()).as("%s client's checks:%n%s", client, text).anyMatch(s -> s.startsWith("STEP " + step + " PASS"));
            }
            assertThat(text).contains("ALL PASS");
        }
    }

    /** The repository's interop/ directory (tests run in the module's directory). */
    private static Path interopDir() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("interop"))) {
            p = p.getParent();
        }
        assertThat(p).as("interop/ above %s", Path.of("").toAbsolutePath()).isNotNull();
        return p.resolve("interop");
    }

    private static String python3() {
        final String given = System.getenv("GPUPOOL_PYTHON");
        if (given != null && !given.isBlank()) {
            return given;
        }
        // Debian's packages are for Debian's interpreter, which a pyenv or venv python3 on the PATH hides
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    /** {@code program}, once {@code probe} ran and exited 0. */
    private static String require(final String program, final List<String> probe, final String fix) {
        requireThat(probe(probe) != null, "`" + String.join(" ", probe) + "` failed: " + fix);
        return program;
    }

    /** What {@code command} printed, or null when it could not run or exited non-zero. */
    private static String probe(final List<String> command) {
        try {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** A test without what it needs skips, except under CI, where it fails. */
    private static void requireThat(final boolean ok, final String why) {
        if (ok) {
            return;
        }
        if (System.getenv("CI") != null && !System.getenv("CI").isBlank() && !"false".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError("CI is set, so this client test must run: " + why);
        }
        Assumptions.assumeTrue(false, "skipped: " + why);
    }
}
