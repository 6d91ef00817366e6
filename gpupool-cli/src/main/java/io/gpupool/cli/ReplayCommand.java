package io.gpupool.cli;

import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.history.HistorySource;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.audit.RunStats;
import io.gpupool.scheduler.audit.WhatIf;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool replay --policy NAME}: what if the recorded inputs had met another policy or settings. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {
            "Re-runs the recorded history under another policy or settings and compares the figures.",
            "Re-runs the recorded journal under another policy or engine settings; job start and end events are",
            "re-timed from each job's observed run time (end event - start). Prints the recorded and re-run figures",
            "side by side (queueing delay, JCT, allocation, fragmentation, preemptions) and as name=value lines,",
            "and writes a PNG chart of allocated GPUs over time."})
public final class ReplayCommand implements Callable<Integer> {

    @Mixin
    HistorySource source;

    @Option(names = "--policy", paramLabel = "NAME", description = "Scoring policy: first-fit, best-fit or fgd.")
    String policy;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Other engine settings for the re-run.")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--chart", paramLabel = "FILE", defaultValue = "replay.png",
            description = "PNG chart to write (default ${DEFAULT-VALUE}).")
    Path chart;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        final Map<String, String> whatIf = new LinkedHashMap<>(settings);
        if (policy != null) {
            whatIf.put("policy", policy);
        }
        try (HistorySource.Opened h = source.open(spec.commandLine())) {
            final List<PlacementDecision> decisions = h.history.decisions(source.pool);
            final List<JournalRecord> journal = new ArrayList<>();
            for (final Iterator<JournalRecord> it = h.history.journal(source.pool, Map.of()); it.hasNext(); ) {
                journal.add(it.next());
            }
            final RunStats recorded;
            final RunStats rerun;
            try {
                recorded = WhatIf.recorded(journal, decisions, HistorySource.configs(Map.of(), decisions));
                rerun = WhatIf.rerun(label(whatIf), journal, decisions, HistorySource.configs(whatIf, decisions), whatIf);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            print(out, recorded, rerun);
            ReplayChart.write(recorded, rerun, chart);
            out.printf("chart=%s%n", chart);
            out.flush();
            return 0;
        }
    }

    static String label(final Map<String, String> settings) {
        return settings.isEmpty() ? "what-if" : "what-if " + settings.toString().replace("{", "").replace("}", "");
    }

    static void print(final PrintWriter out, final RunStats recorded, final RunStats rerun) {
        final Map<String, Double> a = recorded.figures();
        final Map<String, Double> b = rerun.figures();
        out.printf("%-22s %14s %14s%n", "figure", "recorded", "what-if");
        for (final String k : a.keySet()) {
            out.printf("%-22s %14.2f %14.2f%n", k, a.get(k), b.get(k));
        }
        out.printf("what_if=%s%n", rerun.label().replace(' ', '_'));
        for (final String k : a.keySet()) {
            out.printf("recorded.%s=%.3f whatif.%s=%.3f%n", k, a.get(k), k, b.get(k));
        }
    }
}
