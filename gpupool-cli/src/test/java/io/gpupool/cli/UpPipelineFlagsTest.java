package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpupool up}'s pipeline flags: a wrong one stops up before anything starts, with the fix. */
class UpPipelineFlagsTest {

    @TempDir
    Path dir;

    private CliRun up(final String... flags) {
        final String[] args = new String[flags.length + 3];
        args[0] = "up";
        System.arraycopy(flags, 0, args, 1, flags.length);
        args[args.length - 2] = "--data-dir";
        args[args.length - 1] = dir.resolve("d").toString();
        return CliRun.of(args);
    }

    @Test
    void wrongPipelineFlagsSayTheFix() {
        final String[][] cases = {
            {"--rate", "0"}, {"--leaves", "9", "--nodes", "4"}, {"--time-scale", "-1"}, {"--fault-rate", "2"},
            {"--trace", "no-such-trace.csv"}, {"--trace", "no-such-trace.csv", "--no-generator"}, {"--nodes", "0"},
        };
        final String[] fixes = {"--rate must be > 0", "--leaves must be 1 to --nodes (4)", "--time-scale must be > 0",
            "--fault-rate is a probability", "is not a file; e.g. --trace", "is not a file", "--nodes and --gpus-per-node"};
        for (int i = 0; i < cases.length; i++) {
            final CliRun run = up(cases[i]);
            assertThat(run.exitCode()).as(String.join(" ", cases[i])).isNotZero();
            assertThat(run.err()).as(String.join(" ", cases[i])).contains(fixes[i]);
            assertThat(run.out()).as("nothing started").doesNotContain("broker ");
        }
    }
}
