package io.gpupool.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** prometheus/: the config and the alert rules pass promtool's checks, and the rules' unit tests pass. */
final class PromtoolTest {

    @Test
    void alertRulesAreValid() throws Exception {
        final Path promtool = Binaries.require("promtool", "prometheus");
        final List<String> rules = yamlFiles("prometheus/rules");
        assertThat(rules).isNotEmpty();
        final List<String> command = new ArrayList<>(List.of(promtool.toString(), "check", "rules"));
        command.addAll(rules);
        final ProcessRun run = ProcessRun.run(RepoFiles.root(), command);
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("SUCCESS");
    }

    @Test
    void alertRuleUnitTestsPass() throws Exception {
        final Path promtool = Binaries.require("promtool", "prometheus");
        final List<String> tests = yamlFiles("prometheus/tests");
        assertThat(tests).isNotEmpty();
        final List<String> command = new ArrayList<>(List.of(promtool.toString(), "test", "rules"));
        command.addAll(tests);
        final ProcessRun run = ProcessRun.run(RepoFiles.root(), command);
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("SUCCESS").doesNotContain("FAILED");
    }

    @Test
    void everyAlertHasAUnitTest() throws Exception {
        final String tests = String.join("\n", readAll("prometheus/tests"));
        for (final String alert : AlertRules.load().alertNames()) {
            assertThat(tests).as("prometheus/tests has no test of alert " + alert).contains("alertname: " + alert + "\n");
        }
    }

    @Test
    void configIsValid() throws Exception {
        final Path promtool = Binaries.require("promtool", "prometheus");
        final ProcessRun run = ProcessRun.run(RepoFiles.root(),
                List.of(promtool.toString(), "check", "config", "prometheus/prometheus.yml"));
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("is valid prometheus config file syntax")
                .contains(AlertRules.load().alertNames().size() + " rules found");
    }

    /** A broken rule file must make promtool fail, or the checks above prove nothing. */
    @Test
    void promtoolRejectsABrokenRule(@TempDir final Path dir) throws Exception {
        final Path promtool = Binaries.require("promtool", "prometheus");
        final Path bad = dir.resolve("bad.yml");
        Files.writeString(bad, "groups:\n  - name: x\n    rules:\n      - alert: Bad\n        expr: sum by (pool (gpupool_gpus)\n");
        final ProcessRun run = ProcessRun.run(dir, List.of(promtool.toString(), "check", "rules", bad.toString()));
        assertThat(run.exitCode()).isNotZero();
    }

    static List<String> yamlFiles(final String dir) throws IOException {
        try (Stream<Path> files = Files.list(RepoFiles.resolve(dir))) {
            return files.filter(p -> p.toString().endsWith(".yml")).sorted()
                    .map(p -> RepoFiles.root().relativize(p).toString()).toList();
        }
    }

    private static List<String> readAll(final String dir) throws IOException {
        final List<String> out = new ArrayList<>();
        for (final String f : yamlFiles(dir)) {
            out.add(Files.readString(RepoFiles.resolve(f)));
        }
        return out;
    }
}
