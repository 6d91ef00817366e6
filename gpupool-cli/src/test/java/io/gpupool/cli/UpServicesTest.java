package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.cli.up.UpService;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What {@code gpupool up} starts, as its flags ask: without --no-scheduler its own scheduler, with it none. */
class UpServicesTest {

    private static List<String> services(final String... args) {
        final UpCommand up = new UpCommand();
        new CommandLine(up).parseArgs(args);
        return UpCommand.services(up.pipeline, up.secure, new PrintWriter(new StringWriter())).stream().map(UpService::name).toList();
    }

    @Test
    void theWholePipelineByDefault() {
        assertThat(services()).startsWith("local stack", "topics", "scheduler").contains("fleet", "sink");
    }

    @Test
    void secureSetsUpTheAclsAndSchemasOnceTheTopicsExist() {
        assertThat(services("--secure")).startsWith("local stack", "topics", "security", "scheduler");
        assertThat(services()).doesNotContain("security");
    }

    @Test
    void noSchedulerLeavesOnlyTheSchedulerOut() {
        assertThat(services("--no-scheduler")).doesNotContain("scheduler").startsWith("local stack", "topics", "fleet", "sink");
    }
}
