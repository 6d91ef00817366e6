package io.gpupool.cli;

import io.gpupool.localstack.StackDescriptor;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code gpupool up} end to end: the child-JVM broker, the registry and the topics, twice on one data dir. */
class UpCommandTest {

    @TempDir
    Path dataDir;

    @Test
    void aBusyPortFailsWithTheFixAndLeavesNothingRunning() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final CliRun run = CliRun.of("up", "--data-dir", dataDir.toString(), "--port", Integer.toString(taken.getLocalPort()),
                    "--duration", "1s");
            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err()).contains("already in use").contains("--port");
            assertThat(Files.exists(StackDescriptor.file(dataDir))).isFalse();
        }
    }

    @Test
    void upStartsTheStackCreatesTopicsStopsAndReusesItsDataNextTime() {
        final CliRun first = CliRun.of("up", "--data-dir", dataDir.toString(), "--duration", "1s");
        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(first.out())
                .contains("new data directory, formatted")
                .contains("9 created")
                .containsPattern("bootstrap servers +127\\.0\\.0\\.1:\\d+")
                .containsPattern("registry URL +http://127\\.0\\.0\\.1:\\d+")
                .contains("data directory     " + dataDir.toAbsolutePath())
                .contains("stopped cleanly");
        assertThat(Files.exists(StackDescriptor.file(dataDir))).as("descriptor removed after a clean stop").isFalse();
        assertThat(Files.exists(dataDir.resolve("logs/broker.log"))).isTrue();

        final CliRun second = CliRun.of("up", "--data-dir", dataDir.toString(), "--duration", "1s");
        assertThat(second.exitCode()).as(second.err()).isZero();
        assertThat(second.out()).contains("reused data directory").contains("0 created, 9 already there");
        assertThat(ProcessHandle.current().children().filter(p -> p.info().commandLine().orElse("").contains("BrokerMain")).count())
                .as("no broker left running").isZero();
    }
}
