package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node agent's /metrics listens on loopback unless asked for every interface (it used to take
 * 0.0.0.0 always); `up --command-config` names a file that must exist, and says so before starting anything.
 */
@ExtendWith(LocalStackExtension.class)
class CommandConfigAndMetricsHostTest {

    @TempDir
    Path dir;

    private CliRun sink(final TestStack stack, final String... extra) {
        final String[] base = {"sink", "--bootstrap-server", stack.bootstrapServers(), "--registry-url", stack.requireRegistryUrl(),
            "--state-dir", dir.resolve("sink-" + extra.length).toString(), "--group-id", stack.uniqueName("metrics-host"),
            "--duration", "1s"};
        final String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CliRun.of(args);
    }

    @Test
    void aSinksMetricsListenOnLoopbackUnlessAskedForEveryInterface(final TestStack stack) {
        final CliRun local = sink(stack);
        assertThat(local.exitCode()).as(local.out() + local.err()).isZero();
        assertThat(local.out()).contains("metrics at http://127.0.0.1:");
        final CliRun all = sink(stack, "--metrics-host", "0.0.0.0");
        assertThat(all.exitCode()).as(all.out() + all.err()).isZero();
        assertThat(all.out()).contains("metrics at http://0.0.0.0:");
    }

    @Test
    void upWithAMissingCommandConfigFailsWithTheFixBeforeStartingAnything() {
        final Path dataDir = dir.resolve("up");
        final CliRun up = CliRun.of("up", "--data-dir", dataDir.toString(), "--command-config", dir.resolve("nope.properties").toString(),
                "--duration", "1s");
        assertThat(up.exitCode()).isNotZero();
        assertThat(up.err()).contains("--command-config").contains("nope.properties").contains("does not exist");
        assertThat(dataDir.resolve("kafka")).doesNotExist();
    }
}
