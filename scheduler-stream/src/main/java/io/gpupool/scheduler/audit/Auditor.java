package io.gpupool.scheduler.audit;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.stream.Applied;
import io.gpupool.scheduler.stream.JournalApplier;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Re-runs the engine over recorded journal entries, through the same {@link JournalApplier} the
 * placer uses, and compares each recomputed decision with the recorded one caused by the same entry,
 * byte for byte on the Avro encoding (with a field diff when they differ). Checks the history's
 * invariants on the way. A pool may start from an engine snapshot: entries it covers are skipped.
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
        this.configs = configs;
        this.snapshots = Map.copyOf(snapshots);
        this.range = range;
    }

    public AuditResult run(final Iterator<JournalRecord> journal, final RecordedDecisions recorded) {
        final long start = System.nanoTime();
        final java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        final long cpuStart = threads.getCurrentThreadCpuTime();
        final JournalApplier applier = JournalApplier.offline();
        final Map<String, PoolEngine> engines = new HashMap<>();
        final Map<String, String> poolOfJob = new HashMap<>();
        final InvariantChecker invariants = new InvariantChecker(VIOLATIONS_KEPT);
        final DecisionBytes recordedBytes = new DecisionBytes();
        final DecisionBytes recomputedBytes = new DecisionBytes();
        final Map<Integer, long[]> comparedSpan = new HashMap<>();
        final Map<String, Long> fromSnapshot = new HashMap<>();
        long replayed = 0;
        long compared = 0;
        long matched = 0;
        long divergent = 0;
        Divergence first = null;
        // pools with a snapshot start from it, even when no entry follows it
        for (final EngineSnapshot snap : snapshots.values()) {
            final PoolEngine e = PoolEngine.restore(snap.engine(), configs.apply(snap.pool()));
            invariants.seed(e);
            engines.put(snap.pool(), e);
            fromSnapshot.put(snap.pool(), snap.offset());
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
            final PoolEngine engine = engines.computeIfAbsent(pool, p -> new PoolEngine(configs.apply(p)));
            if (r.entry().getPayload() instanceof JobCommand c && c.getCommand() instanceof JobSubmit s) {
                invariants.submitted(c.getJobId().toString(), s.getRequest());
                poolOfJob.put(c.getJobId().toString(), pool);
            }
            final Applied applied = applier.apply(engine, r.entry(), r.position());
            replayed++;
            final Map<String, PlacementDecision> mine = recorded.take(r.partition(), r.offset());
            final boolean inRange = !range.before(r);
            if (inRange) {
                final long[] span = comparedSpan.computeIfAbsent(r.partition(), p -> new long[] {Long.MAX_VALUE, -1});
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
        }
        for (final Map.Entry<Integer, long[]> span : comparedSpan.entrySet()) {
            for (final PlacementDecision rec : recorded.remaining(span.getKey(), span.getValue()[0], span.getValue()[1])) {
                compared++;
                divergent++;
                if (first == null) {
                    first = new Divergence(null, rec.getDecisionId().toString(), rec, null,
                            List.of("cause: recorded decision names journal " + rec.getCause().getPartition() + "@"
                                    + rec.getCause().getOffset() + ", which is not in the journal"));
                }
            }
        }
        invariants.finish(engines, poolOfJob);
        final double seconds = (System.nanoTime() - start) / 1e9;
        final double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        return new AuditResult(replayed, compared, matched, divergent, first, invariants.count(),
                invariants.violations(), seconds, cpu, fromSnapshot);
    }
}
