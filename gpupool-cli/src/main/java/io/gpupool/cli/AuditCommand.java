package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.config.DurationConverter;
import io.gpupool.cli.history.HistorySource;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.cli.history.SnapshotChoice;
import io.gpupool.scheduler.audit.AuditRange;
import io.gpupool.scheduler.audit.AuditResult;
import io.gpupool.scheduler.audit.Auditor;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.audit.RecordedCommands;
import io.gpupool.scheduler.audit.RecordedDecisions;
import io.gpupool.scheduler.audit.reality.RealityAudit;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gpupool audit}: re-runs the engine over the recorded journal and proves every recorded decision,
 * then checks what the sinks report they ran (which a re-run, repeating the engine's own mistakes, cannot).
 */
@Command(name = "audit", mixinStandardHelpOptions = true,
        description = {
            "Proves every recorded decision follows from its inputs, and checks what the sinks ran.",
            "Reads gpupool.journal, gpupool.decisions and gpupool.node-commands, re-runs the engine over the journal and",
            "compares every recorded decision and node command with the recomputed one (byte for byte; a field diff",
            "when they differ). Node commands are compared from where the node-commands topic still holds them all",
            "(it has a retention period). Checks that no GPU was over-allocated, every job was in one state, gangs",
            "were atomic and nothing was placed on unhealthy capacity. Prints the first divergent decision and the",
            "first divergent node command with the journal entry behind each. The engine configuration is the one the",
            "journal records (EngineSettings entries, engine snapshots); each change of it is listed with its position",
            "and each key old -> new, and counted as config_changes=N, never as a divergence.",
            "Then checks reality from gpupool.node-commands and gpupool.job-events (what the sinks report they ran,",
            "which a re-run of the engine cannot see): GPUs whose running parts together held more than the whole GPU,",
            "orphan parts (events of a placement or node never commanded, or a part started after its RELEASE/EVICT",
            "was applied that never reported its end), and commands never reported APPLIED (except those issued in",
            "the last --sink-grace of the history); the first 20 of each are listed.",
            "The second to last line is",
            "replayed=N matched=N divergent=N violations=N entries_per_s=N commands_matched=N commands_divergent=N",
            "(matched/divergent: decisions); the last line is",
            "overallocated_gpus=N orphan_parts=N unapplied_commands=N",
            "(absent, with a line saying why, when either topic is missing).",
            "For the reality check, --pool keeps that pool's commands and the events about them (an event is of the",
            "pool of the command, placement or node it names), and --from/--to choose the moments judged: times as",
            "given, an offset as the time of the first/last journal entry compared. Both topics are still read whole,",
            "so that parts started before the range or ended after it are known.",
            "Exit code 7 on any divergence, violation or reality finding."})
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

    @Option(names = "--sink-grace", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
            description = "Commands issued this long before the history's last record are not yet counted as unapplied:"
                    + " the sink may not have answered (default ${DEFAULT-VALUE}).")
    Duration sinkGrace;

    @Option(names = "--application-id", defaultValue = SchedulerOptions.DEFAULT_APPLICATION_ID,
            description = "The scheduler's Kafka Streams application id: the audit stops at the journal position it has"
                    + " decided up to (entries past it have no decisions yet); all of the journal when it has none"
                    + " (default ${DEFAULT-VALUE}).")
    String applicationId;

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
            // first: everything the placer decided up to here is on the topics read next (its outputs are
            // committed with its position), so no entry is compared with decisions not yet read
            final Map<Integer, Long> decidedUpTo = h.history.placerPositions(applicationId);
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
            final RealityAudit reality = h.history.whyNoSinkHistory().map(RealityAudit::notChecked)
                    .orElseGet(() -> new RealityAudit(h.history.sinkHistory(), source.pool, sinkGrace));
            // informational: bad input from others is dead-lettered by design and is no fault of the scheduler's
            out.printf("dead-lettered records on %s: %d%n", h.history.topicNames().dlq(), h.history.deadLetters());
            final long undecided = h.history.undecidedEntries(decidedUpTo);
            if (undecided > 0) {
                out.printf("%d journal entries past the position scheduler %s has decided up to %s: not compared%n",
                        undecided, applicationId, decidedUpTo);
            }
            if (h.history.undecodableSinkRecords() > 0) {
                out.printf("%d records of the job-events and node-commands topics could not be decoded: not judged%n",
                        h.history.undecodableSinkRecords());
            }
            final AuditResult r = new Auditor(HistorySource.configs(settings, decisions), start, range)
                    .run(h.history.journal(source.pool, offsets, decidedUpTo), RecordedDecisions.of(decisions), commands,
                            reality);
            r.print(out);
            if (h.history.undecodableJournalRecords() > 0) {
                out.printf("%d journal records could not be decoded: skipped, as the placer dead-lettered them%n",
                        h.history.undecodableJournalRecords());
            }
            return (r.passed() ? ExitCodes.OK : ExitCodes.CHECK_FAILED).code();
        }
    }
}
