package io.gpupool.scheduler.audit;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.audit.reality.RealityAudit;
import io.gpupool.scheduler.audit.reality.RealityReport;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.ConfigChange;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.ReplayPools;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Re-runs the engine over recorded journal entries, through the same {@link JournalApplier} the
 * placer uses, and compares each recomputed decision and node command with the recorded one caused by
 * the same entry, byte for byte on the Avro encoding (with a field diff when they differ). Checks the
 * history's invariants on the way. The engine configuration comes from the journal (EngineSettings
 * entries, and the settings inside engine snapshots), as it did in the placer; each change of it is
 * reported ({@link AuditResult#configChanges}), never counted as a divergence. A pool may start from an engine snapshot: entries it covers are
 * skipped, and the snapshot's job book seeds the book of its journal partition. As in the placer
 * (one task per journal partition), each journal partition has its own job book. The re-run repeats
 * the engine's own mistakes, so an audit can also check what the sinks report they ran
 * ({@link RealityAudit}), over the times of the entries it compares.
 */
public final class Auditor {
    private static final int VIOLATIONS_KEPT = 20;

    private final Function<String, EngineConfig> configs;
    private final Map<String, EngineSnapshot> snapshots;
    private final AuditRange range;

    /**
     * @param snapshots per pool, the snapshot to start from (none: from the start of the journal)
     */
    public Auditor(final Function<String, EngineConfig> configs, final Map<String, EngineSnapshot> snapshots,
                   final AuditRange range) {
        for (final EngineSnapshot s : snapshots.values()) {
            if (!s.hasJobBook()) {
                throw new IllegalArgumentException(s.describe() + " was written by an older scheduler and lacks"
                        + " the job book that decisions depend on (a resubmitted job id would look new): audit from"
                        + " a newer snapshot, or from the start of the journal (--snapshot none)");
            }
        }
        this.configs = configs;
        this.snapshots = Map.copyOf(snapshots);
        this.range = range;
    }

    /** An audit of the decisions only. */
    public AuditResult run(final Iterator<JournalRecord> journal, final RecordedDecisions recorded) {
        return run(journal, recorded, RecordedCommands.notAudited());
    }

    /** An audit of the decisions and of the node commands. */
    public AuditResult run(final Iterator<JournalRecord> journal, final RecordedDecisions recorded,
                           final RecordedCommands commands) {
        return run(journal, recorded, commands, RealityAudit.NONE);
    }

    /** An audit of the decisions, the node commands and of what the sinks report they ran. */
    public AuditResult run(final Iterator<JournalRecord> journal, final RecordedDecisions recorded,
                           final RecordedCommands commands, final RealityAudit reality) {
        final long start = System.nanoTime();
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final long cpuStart = threads.getCurrentThreadCpuTime();
        final Map<Integer, JournalApplier> appliers = new HashMap<>();
        final ReplayPools engines = new ReplayPools(configs);
        final List<String> skipped = new ArrayList<>();
        final Map<String, String> poolOfJob = new HashMap<>();
        final InvariantChecker invariants = new InvariantChecker(VIOLATIONS_KEPT);
        final DecisionBytes<PlacementDecision> recordedBytes = DecisionBytes.decisions();
        final DecisionBytes<PlacementDecision> recomputedBytes = DecisionBytes.decisions();
        final DecisionBytes<NodeCommand> recordedCommandBytes = DecisionBytes.commands();
        final DecisionBytes<NodeCommand> recomputedCommandBytes = DecisionBytes.commands();
        final Map<Integer, long[]> comparedSpan = new HashMap<>();
        final Map<Integer, long[]> commandSpan = new HashMap<>();
        long commandsCompared = 0;
        long commandsMatched = 0;
        long commandsDivergent = 0;
        CommandDivergence firstCommand = null;
        // per journal partition: its job book (applier) and compared spans, looked up when the partition changes
        JournalApplier applier = null;
        long[] span = null;
        long[] cspan = null;
        int applierPartition = Integer.MIN_VALUE;
        final Map<String, Long> fromSnapshot = new HashMap<>();
        final List<ConfigChange> configChanges = new ArrayList<>();
        /** Pools that started from a snapshot or have applied an entry (membership only). */
        final Set<String> running = new HashSet<>(snapshots.keySet());
        long firstComparedMs = Long.MAX_VALUE;
        long lastComparedMs = Long.MIN_VALUE;
        long replayed = 0;
        long compared = 0;
        long matched = 0;
        long divergent = 0;
        Divergence first = null;
        // pools with a snapshot start from it, even when no entry follows it
        for (final EngineSnapshot snap : snapshots.values()) {
            invariants.seed(engines.startFrom(snap.pool(), snap.engine()));
            fromSnapshot.put(snap.pool(), snap.offset());
            appliers.computeIfAbsent(snap.partition(), p -> JournalApplier.offline()).restoreJobBook(snap.jobBook());
        }
        while (journal.hasNext()) {
            final JournalRecord r = journal.next();
            if (range.after(r)) {
                continue; // partitions are read one after the other: a later one may still be in range
            }
            final String pool = r.entry().getPool();
            final EngineSnapshot snap = snapshots.get(pool);
            if (snap != null && snap.partition() == r.partition() && r.offset() <= snap.offset()) {
                continue;
            }
            if (r.entry().getPayload() instanceof JobCommand c && c.getCommand() instanceof JobSubmit s) {
                invariants.submitted(c.getJobId().toString(), s.getRequest(), r);
                poolOfJob.put(c.getJobId().toString(), pool);
            }
            if (r.partition() != applierPartition) {
                applierPartition = r.partition();
                applier = appliers.computeIfAbsent(applierPartition, p -> JournalApplier.offline());
                span = comparedSpan.computeIfAbsent(applierPartition, p -> new long[] {Long.MAX_VALUE, -1});
                cspan = commandSpan.computeIfAbsent(applierPartition, p -> new long[] {Long.MAX_VALUE, -1});
            }
            final Applied applied = engines.apply(applier, r.entry(), r.position());
            final PoolEngine engine = engines.engine(pool);
            replayed++;
            if (applied.skipped() != null && skipped.size() < VIOLATIONS_KEPT) {
                skipped.add("journal entry " + r.partition() + "@" + r.offset() + " of pool " + pool + " ("
                        + r.entry().getPayload().getClass().getSimpleName() + "): the engine threw "
                        + applied.skipped() + "; skipped as the placer skips it");
            }
            // the journal changed the rules here: reported, not compared. Settings before a pool's first other entry
            // are the configuration it started with (they differ only from the audit's own settings): no change.
            if (applied.configChange() != null && running.contains(pool)) {
                configChanges.add(applied.configChange());
            }
            running.add(pool);
            final Map<String, PlacementDecision> mine = recorded.take(r.partition(), r.offset());
            final boolean inRange = !range.before(r);
            if (inRange) {
                firstComparedMs = Math.min(firstComparedMs, r.timestampMs());
                lastComparedMs = Math.max(lastComparedMs, r.timestampMs());
                span[0] = Math.min(span[0], r.offset());
                span[1] = Math.max(span[1], r.offset());
            }
            for (final PlacementDecision d : applied.decisions()) {
                final PlacementDecision rec = mine.remove(d.getDecisionId().toString());
                if (rec != null) {
                    invariants.decision(rec, engine, r);
                }
                if (!inRange) {
                    continue;
                }
                compared++;
                if (rec != null && Arrays.equals(recordedBytes.of(rec), recomputedBytes.of(d))) {
                    matched++;
                } else {
                    divergent++;
                    if (first == null) {
                        first = new Divergence(r, d.getDecisionId().toString(), rec, d, DecisionDiff.of(rec, d));
                    }
                }
            }
            for (final PlacementDecision rec : mine.values()) {
                // recorded, but the engine did not make it: still part of what happened
                invariants.decision(rec, engine, r);
                if (inRange) {
                    compared++;
                    divergent++;
                    if (first == null) {
                        first = new Divergence(r, rec.getDecisionId().toString(), rec, null, List.of());
                    }
                }
            }
            if (!inRange || !commands.compares(r.partition(), r.offset())) {
                continue;
            }
            cspan[0] = Math.min(cspan[0], r.offset());
            cspan[1] = Math.max(cspan[1], r.offset());
            final Map<String, NodeCommand> recordedCommands = commands.take(r.partition(), r.offset());
            final List<NodeCommand> recomputed = applied.commands();
            Map<String, Integer> repeats = null;
            for (final NodeCommand c : recomputed) {
                String key = RecordedCommands.key(c);
                if (recomputed.size() > 1) {
                    repeats = repeats == null ? new HashMap<>() : repeats;
                    final int n = repeats.merge(key, 1, Integer::sum);
                    key = n == 1 ? key : key + "#" + n;
                }
                final NodeCommand rec = recordedCommands.remove(key);
                commandsCompared++;
                if (rec != null && Arrays.equals(recordedCommandBytes.of(rec), recomputedCommandBytes.of(c))) {
                    commandsMatched++;
                } else {
                    commandsDivergent++;
                    if (firstCommand == null) {
                        firstCommand = new CommandDivergence(r, c.getCommandId(), rec, c, DecisionDiff.fields(rec, c));
                    }
                }
            }
            for (final NodeCommand rec : recordedCommands.values()) {
                // recorded, but the placer would not have sent it (or not twice: a second record of one
                // command, as a forger has to append it, is shown against the command the placer sent)
                commandsCompared++;
                commandsDivergent++;
                if (firstCommand == null) {
                    final NodeCommand same = recomputed.stream().filter(c -> c.getType() == rec.getType()
                            && c.getCommandId().equals(rec.getCommandId())).findFirst().orElse(null);
                    firstCommand = new CommandDivergence(r, rec.getCommandId(), rec, same, DecisionDiff.fields(rec, same));
                }
            }
        }
        for (final Map.Entry<Integer, long[]> s : commandSpan.entrySet()) {
            for (final NodeCommand rec : commands.remaining(s.getKey(), s.getValue()[0], s.getValue()[1])) {
                commandsCompared++;
                commandsDivergent++;
                if (firstCommand == null) {
                    firstCommand = new CommandDivergence(null, rec.getCommandId(), rec, null,
                            List.of("cause: recorded node command names journal " + rec.getCause().getPartition() + "@"
                                    + rec.getCause().getOffset() + ", which is not in the journal"));
                }
            }
        }
        for (final Map.Entry<Integer, long[]> s : comparedSpan.entrySet()) {
            for (final PlacementDecision rec : recorded.remaining(s.getKey(), s.getValue()[0], s.getValue()[1])) {
                compared++;
                divergent++;
                if (first == null) {
                    first = new Divergence(null, rec.getDecisionId().toString(), rec, null,
                            List.of("cause: recorded decision names journal " + rec.getCause().getPartition() + "@"
                                    + rec.getCause().getOffset() + ", which is not in the journal"));
                }
            }
        }
        invariants.finish(engines.engines(), poolOfJob);
        final RealityReport sinks = reality.check(range.realityWindow(firstComparedMs, lastComparedMs));
        final double seconds = (System.nanoTime() - start) / 1e9;
        final double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        final CommandAudit commandAudit = commands.audited() ? new CommandAudit(true, null, commandsCompared,
                commandsMatched, commandsDivergent, firstCommand, commands.completeFrom())
                : new CommandAudit(false, commands.whyNotAudited(), 0, 0, 0, null, Map.of());
        return new AuditResult(replayed, compared, matched, divergent, first, invariants.count(),
                invariants.violations(), seconds, cpu, fromSnapshot, commandAudit, sinks, configChanges,
                engines.skipped(), skipped);
    }
}
