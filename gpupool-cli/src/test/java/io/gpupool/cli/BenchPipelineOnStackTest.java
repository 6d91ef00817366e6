package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@code gpupool bench pipeline --find-max}, small and short, on the real local broker: the drain, the
 * pass-through over their whole backlogs, the search steps and the overload all finish and print sane
 * figures. It checks the bench, not the scheduler's speed: the p99 target is loose enough for a machine
 * busy with other builds. The timeout is the hang check (the pass-through once waited its full 300 s for
 * records that never got into its input); on a quiet 2-core machine the run takes well under a minute.
 * The pool (128 nodes, 1,024 GPUs) and the short job runtime keep the pool from filling at the first step
 * (0.4x the drain ceiling, whatever the machine's): a 128-GPU pool filled there, and each step then waited
 * a minute for its queue to drain before the next one.
 */
@ExtendWith(LocalStackExtension.class)
@Isolated("a benchmark: its figures and its time are its own only when nothing else runs beside it")
class BenchPipelineOnStackTest {

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aShortSearchWithAnOverloadPrintsEveryFigure(final TestStack stack) {
        // the bench's progress goes to System.err (the class is isolated: nothing else writes there meanwhile)
        final ByteArrayOutputStream progress = new ByteArrayOutputStream();
        final PrintStream stderr = System.err;
        final CliRun r;
        System.setErr(new PrintStream(progress, true, StandardCharsets.UTF_8));
        try {
            r = CliRun.of("bench", "pipeline", "--bootstrap-server", stack.bootstrapServers(),
                    "--registry-url", stack.requireRegistryUrl(), "--nodes", "128", "--leaves", "4", "--find-max",
                    "--p99-target-ms", "30000", "--search-steps", "2", "--warmup", "1", "--measure", "2", "--overload", "2",
                    "--job-runtime-ms", "50", "--passthrough-records", "3000", "--drain-records", "300", "--jit-warmup", "2");
        } finally {
            System.setErr(stderr);
        }
        final String progressLines = progress.toString(StandardCharsets.UTF_8);
        stderr.print(progressLines);
        assertThat(r.exitCode()).as(r.err()).isZero();
        final Map<String, String> figures = r.out().lines().filter(l -> l.contains("="))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1)));
        assertThat(figures).as(r.out()).containsKeys("step1_offered_requests_per_s", "step1_p99_latency_ms",
                "step1_held", "step2_offered_requests_per_s", "max_offered_requests_per_s", "search_steps",
                "overload_undecided", "requests_shed_per_s", "overload_shed_per_s", "overload_admitted_ratio");
        assertThat(figures).containsEntry("drain_records", "300").containsEntry("passthrough_records", "3000");
        assertThat(number(figures, "drain_requests_per_s")).isPositive();
        assertThat(number(figures, "passthrough_records_per_s")).isPositive();
        assertThat(figures.get("drain_ratio")).matches("\\d+\\.\\d{3}");
        // the lifecycle drain runs the same backlog to its end (RELEASED) with the bench as the sink, and the
        // *_lifecycle ratios are the issue's ratios over it
        assertThat(progressLines).contains("bench: scheduler lifecycle drain of a backlog of 300 job records");
        final double lifecycleDrain = number(figures, "drain_lifecycle_requests_per_s");
        assertThat(lifecycleDrain).isPositive();
        final double rounding = 0.001 + 1.0 / lifecycleDrain; // the rates are printed whole, the ratios from the exact ones
        assertThat(number(figures, "max_rate_ratio_lifecycle"))
                .isCloseTo(number(figures, "max_offered_requests_per_s") / lifecycleDrain, within(rounding));
        assertThat(number(figures, "overload_ratio_lifecycle"))
                .isCloseTo(number(figures, "overload_requests_per_s") / lifecycleDrain, within(rounding));
        assertThat(number(figures, "overload_admitted_ratio_lifecycle"))
                .isBetween(0.0, number(figures, "overload_ratio_lifecycle"));
        // with a JIT warm-up an untimed drain comes first; 2 s is under the paced warm-up's shortest length (ramp
        // and a whole 5 s interval), so that one ends at its limit
        assertThat(number(figures, "warmup_drain_requests_per_s")).isPositive();
        assertThat(figures).containsEntry("jit_warmup_s", "-1.0");
        // the first step is 0.4x the drain ceiling (50/s at least): that holds a 30 s p99 anywhere
        assertThat(figures).containsEntry("step1_held", "true");
        assertThat(number(figures, "max_offered_requests_per_s")).isGreaterThanOrEqualTo(
                number(figures, "step1_offered_requests_per_s"));
        assertThat(number(figures, "p99_latency_ms")).isBetween(0.0, 30_000.0);
        assertThat(number(figures, "p50_latency_ms")).isBetween(0.0, number(figures, "p99_latency_ms"));
        assertThat(number(figures, "overload_offered_requests_per_s"))
                .isEqualTo(2 * number(figures, "max_offered_requests_per_s"));
        assertThat(number(figures, "overload_requests_per_s")).isPositive();
        assertThat(number(figures, "overload_ratio")).isPositive();
        // shed submits are decisions as well; what the engine decided is the rest
        assertThat(number(figures, "overload_admitted_ratio")).isBetween(0.0, number(figures, "overload_ratio"));
        // recovered (every overload request decided) exactly when recovery_s is a time, not -1
        assertThat(number(figures, "recovery_s") >= 0).as(r.out()).isEqualTo(number(figures, "overload_undecided") == 0);
        // the progress lines time releases too (the bench's COMPLETED report to its RELEASED decision)
        final Pattern release = Pattern.compile("release_p50_5s=(-?\\d+)ms release_p99_5s=(-?\\d+)ms");
        assertThat(progressLines.lines().map(release::matcher).filter(Matcher::find)
                .filter(m -> Long.parseLong(m.group(1)) >= 0 && Long.parseLong(m.group(2)) >= Long.parseLong(m.group(1))))
                .as(progressLines).isNotEmpty();
        // and where the scheduler's backlog sits: its inputs or its journal
        assertThat(progressLines).containsPattern("lag_jobs=\\d+ lag_job_events=\\d+ lag_telemetry_gpu=\\d+ lag_journal=\\d+");
        // and the scheduler's transaction commits: a scheduler deciding paced requests commits, each taking some time
        final Pattern commits = Pattern.compile("commits_5s=(\\d+) commit_ms=(-?[\\d.]+)");
        assertThat(progressLines.lines().map(commits::matcher).filter(Matcher::find)
                .filter(m -> Long.parseLong(m.group(1)) > 0 && Double.parseDouble(m.group(2)) > 0))
                .as(progressLines).isNotEmpty();
    }

    private static double number(final Map<String, String> figures, final String name) {
        assertThat(figures).containsKey(name);
        return Double.parseDouble(figures.get(name));
    }
}
