package io.gpupool.bench.restart;

import io.gpupool.scheduler.audit.AuditResult;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Kill -9 to first new decision: the scheduler runs as a child JVM on the bench's own topics, next to a
 * simulated fleet and the simulated sink in this JVM, under a steady job load ({@link RestartRig}). It is
 * SIGKILLed {@code kills} times, each time restarted at once on the same state directory (the same instance),
 * and the time from the kill to the first decision caused by an input written after it is measured, with the
 * part of it the new process took to reach RUNNING. At the end: every submitted job has its final decision
 * (none lost), no decision id was read twice (read_committed: none duplicated), and the audit is clean.
 */
public final class RestartBench {
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration DECISION_TIMEOUT = Duration.ofMinutes(2);
    /** No new decision for this long while jobs wait for theirs: the bench gives up waiting. */
    private static final Duration FINISH_STALL = Duration.ofMinutes(1);
    private static final String SCHEDULER = "scheduler";

    private RestartBench() {
    }

    /** Runs the bench; the figures in order, {@code passed=true} when nothing was lost or duplicated and the audit is clean. */
    public static Map<String, String> run(final RestartBenchOptions o, final PrintStream progress) throws Exception {
        final Map<String, String> figures = new LinkedHashMap<>();
        final List<Long> killToDecision = new ArrayList<>();
        final List<Long> killToReady = new ArrayList<>();
        try (RestartRig rig = new RestartRig(o, progress)) {
            SchedulerProcess scheduler = rig.scheduler(SCHEDULER, List.of());
            try {
                scheduler.awaitReady(READY_TIMEOUT);
                rig.startPipeline();
                progress.printf("restart: warming up for %d s%n", o.warmup().toSeconds());
                Thread.sleep(o.warmup().toMillis());
                for (int k = 1; k <= o.kills(); k++) {
                    final long killedAt = System.nanoTime();
                    final CompletableFuture<Long> firstNew = rig.decisions().firstDecisionAfter(System.currentTimeMillis());
                    scheduler.kill();
                    scheduler = rig.scheduler(SCHEDULER, List.of());
                    scheduler.awaitReady(READY_TIMEOUT);
                    killToReady.add((System.nanoTime() - killedAt) / 1_000_000);
                    killToDecision.add((firstNew.get(DECISION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) - killedAt) / 1_000_000);
                    progress.printf("restart: kill %d/%d: running again after %d ms, first new decision after %d ms%n",
                            k, o.kills(), killToReady.get(k - 1), killToDecision.get(k - 1));
                    figures.put("kill_" + k + "_first_decision_ms", Long.toString(killToDecision.get(k - 1)));
                    Thread.sleep(o.betweenKills().toMillis());
                }
                rig.finish(FINISH_STALL);
                rig.putOutcome(figures);
            } finally {
                scheduler.close();
            }
            summary(figures, "first_decision", killToDecision);
            summary(figures, "running", killToReady);
            final AuditResult audit = rig.audit();
            figures.put("audit_passed", Boolean.toString(audit.passed()));
            figures.put("passed", Boolean.toString(audit.passed() && figures.get("jobs_without_final_decision").equals("0")
                    && figures.get("decisions_duplicated").equals("0")));
        }
        return figures;
    }

    private static void summary(final Map<String, String> figures, final String name, final List<Long> ms) {
        final long[] sorted = ms.stream().mapToLong(Long::longValue).sorted().toArray();
        figures.put(name + "_p50_ms", Long.toString(percentile(sorted, 50)));
        figures.put(name + "_p90_ms", Long.toString(percentile(sorted, 90)));
        figures.put(name + "_max_ms", Long.toString(sorted.length == 0 ? 0 : sorted[sorted.length - 1]));
    }

    /** Nearest-rank percentile; 0 of none. */
    static long percentile(final long[] sorted, final int p) {
        if (sorted.length == 0) {
            return 0;
        }
        final int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
