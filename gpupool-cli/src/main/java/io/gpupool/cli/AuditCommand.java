package io.gpupool.cli;

import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.history.HistorySource;
import io.gpupool.cli.history.SnapshotChoice;
import io.gpupool.scheduler.audit.AuditRange;
import io.gpupool.scheduler.audit.AuditResult;
import io.gpupool.scheduler.audit.Auditor;
import io.gpupool.scheduler.audit.EngineSnapshot;
import io.gpupool.scheduler.audit.RecordedCommands;
import io.gpupool.scheduler.audit.RecordedDecisions;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool audit}: re-runs the engine over the recorded journal and proves every recorded decision. */
@Command(name = "audit", mixinStandardHelpOptions = true,
        description = {
            "Reads gpupool.journal, gpupool.decisions and gpupool.node-commands, re-runs the engine over the journal and",
            "compares every recorded decision and node command with the recomputed one (byte for byte; a field diff",
            "when they differ). Node commands are compared from where the node-commands topic still holds them all",
            "(it has a retention period). Checks that no GPU was over-allocated, every job was in one state, gangs",
            "were atomic and nothing was placed on unhealthy capacity. Prints the first divergent decision and the",
            "first divergent node command with the journal entry behind each; the last line is",
            "replayed=N matched=N divergent=N violations=N entries_per_s=N commands_matched=N commands_divergent=N",
            "(matched/divergent: decisions). Exit 1 on any divergence or violation."})
public final class AuditCommand implements Callable<Integer> {

    @Mixin
    HistorySource source;

    @Option(names = "--from", paramLabel = "OFFSET|TIME",
            description = "First journal entry compared: an offset, or an ISO-8601 time (earlier entries are replayed, not compared).")
    String from;

    @Option(names = "--to", paramLabel = "OFFSET|TIME", description = "Last journal entry audited (offset or ISO-8601 time).")
    String to;

    @Option(names = "--snapshot", paramLabel = "auto|none|latest|OFFSET", defaultValue = "auto",
            description = "Engine snapshot to start from: auto (the newest before --from; none without --from), none,"
                    + " latest, or the snapshot covering that journal offset (default ${DEFAULT-VALUE}).")
    String snapshot;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "Engine settings the scheduler ran with (default: its defaults, policy as the decisions name it).")
    Map<String, String> settings = new LinkedHashMap<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        final PrintWriter out = spec.commandLine().getOut();
        final AuditRange range;
        try {
            range = AuditRange.of(from, to);
        } catch (RuntimeException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--from/--to: " + e.getMessage());
        }
        try (HistorySource.Opened h = source.open(spec.commandLine())) {
            final List<PlacementDecision> decisions = h.history.decisions(source.pool);
            final Map<String, EngineSnapshot> start;
            try {
                start = SnapshotChoice.choose(snapshot, h.history.snapshots(source.pool), range);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            final Map<Integer, Long> offsets = new HashMap<>();
            if (source.pool != null && start.containsKey(source.pool)) {
                final EngineSnapshot s = start.get(source.pool);
                offsets.put(s.partition(), s.offset() + 1); // a pool lives on one partition: skip what the snapshot covers
            }
            final RecordedCommands commands = h.history.nodeCommands(source.pool);
            final AuditResult r = new Auditor(HistorySource.configs(settings, decisions), start, range)
                    .run(h.history.journal(source.pool, offsets), RecordedDecisions.of(decisions), commands);
            r.print(out);
            return r.passed() ? 0 : 1;
        }
    }
}
