package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class CliParseTest {

    @ParameterizedTest
    @ValueSource(strings = {"up", "topics"})
    void everyCommandHasHelp(final String command) {
        final CliRun run = CliRun.of(command, "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: gpupool " + command).contains("--data-dir").contains("--config");
    }

    @Test
    void theTopCommandListsUpAndTopics() {
        final CliRun run = CliRun.of("--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("up").contains("topics");
    }

    @Test
    void theTopHelpHasOneTableOfExitCodesAndAFullSentencePerCommand() {
        final CliRun run = CliRun.of("--help");
        for (final ExitCodes e : ExitCodes.values()) {
            assertThat(run.out()).containsPattern("(?m)^ +" + e.code() + " +" + java.util.regex.Pattern.quote(
                    e.meaning().substring(0, 20)));
        }
        final String commands = run.out().substring(run.out().indexOf("Commands:"), run.out().indexOf("Exit codes"));
        // a command's line with its continuation lines ends its sentence
        for (final String entry : commands.split("\\n  (?=[a-z])")) {
            if (!entry.startsWith("Commands:")) {
                assertThat(entry.strip()).as(entry).endsWith(".");
            }
        }
    }

    /** Every command and subcommand, as the words a user types before --help: "bench pipeline", "jobs". */
    static java.util.stream.Stream<String> everyCommandPath() {
        final java.util.List<String> paths = new java.util.ArrayList<>();
        addPaths("", Gpupool.commandLine(new String[] {"--help"}, java.util.Map.of()), paths);
        return paths.stream();
    }

    private static void addPaths(final String prefix, final picocli.CommandLine command,
                                 final java.util.List<String> paths) {
        for (final var sub : new java.util.TreeMap<>(command.getSubcommands()).entrySet()) {
            final String path = (prefix + " " + sub.getKey()).strip();
            if (!sub.getKey().equals("help") && !paths.contains(path)) {
                paths.add(path);
                addPaths(path, sub.getValue(), paths);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("everyCommandPath")
    void helpPrintsWithoutAFormatWarning(final String commandPath) {
        final String[] args = (commandPath + " --help").split(" ");
        final java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        final CliRun run = withThisThreadsStderrIn(captured, () -> CliRun.of(args));
        assertThat(run.exitCode()).as(commandPath).isZero();
        assertThat(captured.toString() + run.err()).as(commandPath).doesNotContain("WARN").doesNotContain("Could not format");
    }

    /**
     * A program that runs gpupool in its own JVM (the tests do) sets the command line's writers; they must
     * keep the command's output even when System.err was swapped between building the command line and
     * running it, as another test thread does. Picocli's default strategy put back the System.err of when it
     * was built: a refusal of {@code gpupool submit} then went to the JVM's stderr, not to the writer.
     */
    @Test
    void theWritersSetOnTheCommandLineKeepItsOutputWhenSystemErrChangesMeanwhile(@TempDir final Path dir) {
        final String[] args = {"logs", "no-such-job", "--data-dir", dir.toString()};
        final picocli.CommandLine cli = Gpupool.commandLine(args, java.util.Map.of());
        final java.io.StringWriter err = new java.io.StringWriter();
        cli.setOut(new java.io.PrintWriter(new java.io.StringWriter(), true));
        cli.setErr(new java.io.PrintWriter(err, true));
        final int code = withThisThreadsStderrIn(new java.io.ByteArrayOutputStream(), () -> cli.execute(args));
        assertThat(code).isEqualTo(ExitCodes.NOT_FOUND.code());
        assertThat(err.toString()).contains("no output of job no-such-job");
    }

    /** Runs {@code action} with what this thread writes to System.err going to {@code captured}, then puts System.err back. */
    private static <T> T withThisThreadsStderrIn(final java.io.ByteArrayOutputStream captured,
                                                 final java.util.function.Supplier<T> action) {
        final java.io.PrintStream before = System.err;
        System.setErr(new java.io.PrintStream(thisThreadOnly(captured, before), true));
        try {
            return action.get();
        } finally {
            System.setErr(before);
        }
    }

    /**
     * Keeps what this thread writes and passes the rest on: the shared test stack of an earlier test class
     * still runs in this JVM, and its Kafka Streams threads log warnings of their own (a state directory
     * under the OS temp folder) that are not the help command's.
     */
    private static java.io.OutputStream thisThreadOnly(final java.io.OutputStream captured,
                                                       final java.io.OutputStream others) {
        final Thread caller = Thread.currentThread();
        return new java.io.OutputStream() {
            @Override
            public void write(final int b) throws java.io.IOException {
                (Thread.currentThread() == caller ? captured : others).write(b);
            }

            @Override
            public void write(final byte[] bytes, final int offset, final int length) throws java.io.IOException {
                (Thread.currentThread() == caller ? captured : others).write(bytes, offset, length);
            }
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"replay", "audit", "simulate", "scheduler"})
    void theEngineSettingsAreListedWhereSetOrEngineTakesThem(final String command) {
        final CliRun run = CliRun.of(command, "--help");
        assertThat(run.out()).contains("Engine settings for").contains("policy").contains("tenant.NAME.max-gpus")
                .contains("finished-job-retention-ms");
    }

    @Test
    void aMistypedFlagSaysWhatWasMeantAndWhereTheHelpIs() {
        final CliRun run = CliRun.of("up", "--dat-dir", "/tmp/x");
        assertThat(run.exitCode()).isEqualTo(64);
        assertThat(run.err())
                .contains("Unknown option").contains("'--dat-dir'")
                .contains("--data-dir")
                .contains("Try 'gpupool up --help'");
        assertThat(run.out()).as("nothing started").isEmpty();
    }

    @Test
    void aMistypedCommandSuggestsTheRightOne() {
        final CliRun run = CliRun.of("topic");
        assertThat(run.exitCode()).isEqualTo(64);
        assertThat(run.err()).contains("topics").contains("Try 'gpupool --help'");
    }

    @Test
    void aNamedCommandGetsOnlyItsOwnModelAndTheRestGetAll() {
        // building every command's model was most of a short command's start-up
        assertThat(Gpupool.commandLine(new String[] {"jobs", "-o", "json"}, java.util.Map.of()).getSubcommands())
                .containsOnlyKeys("jobs");
        assertThat(Gpupool.commandLine(new String[] {"--help"}, java.util.Map.of()).getSubcommands())
                .containsKeys("up", "jobs", "bench", "help").hasSizeGreaterThan(15);
        assertThat(Gpupool.commandLine(new String[] {"topic"}, java.util.Map.of()).getSubcommands()).containsKey("topics");
        final CliRun help = CliRun.of("help", "jobs");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("Usage: gpupool jobs");
    }

    @Test
    void aReadViewWithoutARunningSchedulerSaysHowToStartOneWithTheNoAnswerCode(@TempDir final Path dir) {
        final CliRun run = CliRun.of("jobs", "--data-dir", dir.toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.NO_ANSWER.code());
        assertThat(run.err()).contains("no scheduler runs for the local stack").contains("gpupool up");
    }

    @Test
    void aBadDurationExplainsTheFormat() {
        final CliRun run = CliRun.of("up", "--duration", "5 minutes");
        assertThat(run.exitCode()).isEqualTo(64);
        assertThat(run.err()).contains("not a duration").contains("30s").contains("Try 'gpupool up --help'");
    }

    @Test
    void verifyAndAlterTogetherAreRefusedWithTheReason() {
        final CliRun run = CliRun.of("topics", "--bootstrap-server", "127.0.0.1:1", "--verify", "--alter-configs");
        assertThat(run.exitCode()).isEqualTo(64);
        assertThat(run.err()).contains("give one of them");
    }

    @Test
    void topicsWithoutAClusterSaysHowToGetOne(@TempDir final Path empty) {
        final CliRun run = CliRun.of("topics", "--data-dir", empty.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("no local stack runs in").contains("gpupool up").contains("--bootstrap-server");
    }

    @Test
    void aMissingConfigFileIsNamed() {
        final CliRun run = CliRun.of("topics", "--config", "/nonexistent/gpupool.properties", "--verify");
        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains("/nonexistent/gpupool.properties").contains("does not exist");
    }
}
