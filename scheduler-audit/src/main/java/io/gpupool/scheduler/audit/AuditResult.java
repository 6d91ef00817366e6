package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.audit.reality.RealityReport;
import io.gpupool.scheduler.journal.ConfigChange;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an audit found. {@code replayed} counts the journal entries applied to an engine (warm-up
 * included), {@code matched} and {@code divergent} the decisions compared in the audited range;
 * {@code commands} the same for the node commands; {@code reality} what the sinks report they ran;
 * {@code configChanges} where the journal changed a pool's engine configuration, in journal order;
 * {@code skippedCount} the entries the engine threw on, skipped as the placer skips them (not a divergence:
 * the placer did the same; the first few are described in {@code skipped}).
 */
public record AuditResult(long replayed, long compared, long matched, long divergent, Divergence firstDivergence,
                          long violationCount, List<Violation> violations, double seconds, double cpuSeconds,
                          Map<String, Long> startedFromSnapshot, CommandAudit commands,
                          RealityReport reality, List<ConfigChange> configChanges, long skippedCount,
                          List<String> skipped) {

    public AuditResult {
        configChanges = List.copyOf(configChanges);
        violations = List.copyOf(violations);
        skipped = List.copyOf(skipped);
        startedFromSnapshot = Map.copyOf(startedFromSnapshot);
        commands = commands == null ? CommandAudit.NONE : commands;
        reality = reality == null ? RealityReport.NONE : reality;
    }

    public boolean passed() {
        return divergent == 0 && violationCount == 0 && commands.divergent() == 0 && reality.clean();
    }

    public long entriesPerSecond() {
        return seconds <= 0 ? replayed : Math.round(replayed / seconds);
    }

    /** Entries per CPU-second of the auditing thread: what one core does when the machine is shared. */
    public long entriesPerCpuSecond() {
        return cpuSeconds <= 0 ? replayed : Math.round(replayed / cpuSeconds);
    }

    /**
     * The report: where it started, the first divergence, the violations, the reality findings, then the
     * name=value lines: the replay's, and last (when the sinks' reports were checked) reality's.
     */
    public void print(final PrintWriter out) {
        new TreeMap<>(startedFromSnapshot).forEach((pool, offset) ->
                out.printf("pool %s: started from the engine snapshot at journal offset %d%n", pool, offset));
        for (final ConfigChange c : configChanges) {
            out.println(c.describe());
        }
        out.printf("entries replayed: %d; decisions compared: %d, matched: %d, divergent: %d%n", replayed, compared,
                matched, divergent);
        if (!commands.audited() && commands.whyNot() != null) {
            out.println("node commands not compared: " + commands.whyNot());
        }
        if (commands.audited()) {
            new TreeMap<>(commands.completeFrom()).forEach((partition, from) -> out.println(
                    from == Long.MAX_VALUE
                            ? "node commands of journal partition " + partition + " not compared: the node-commands topic"
                                    + " no longer holds all of them (retention)"
                            : "node commands compared from journal offset " + from + " of partition " + partition
                                    + " on: older ones were deleted by the node-commands topic's retention"));
            out.printf("node commands compared: %d, matched: %d, divergent: %d%n", commands.compared(),
                    commands.matched(), commands.divergent());
        }
        for (final String s : skipped) {
            out.println(s);
        }
        if (skippedCount > skipped.size()) {
            out.printf("... and %d more skipped entries%n", skippedCount - skipped.size());
        }
        if (firstDivergence != null) {
            out.print(firstDivergence.describe());
        }
        if (commands.first() != null) {
            out.print(commands.first().describe());
        }
        for (final Violation v : violations) {
            out.println(v.describe());
        }
        if (violationCount > violations.size()) {
            out.printf("... and %d more violations%n", violationCount - violations.size());
        }
        reality.printFindings(out);
        if (!configChanges.isEmpty()) {
            out.printf("config_changes=%d%n", configChanges.size());
        }
        if (skippedCount > 0) {
            out.println("skipped_entries=" + skippedCount);
        }
        out.printf("seconds=%.3f cpu_seconds=%.3f entries_per_cpu_s=%d%n", seconds, cpuSeconds, entriesPerCpuSecond());
        out.printf("replayed=%d matched=%d divergent=%d violations=%d entries_per_s=%d%s%n", replayed, matched, divergent,
                violationCount, entriesPerSecond(), commands.audited()
                        ? " commands_matched=" + commands.matched() + " commands_divergent=" + commands.divergent() : "");
        if (reality.checked()) {
            out.println(reality.summary());
        }
        out.flush();
    }
}
