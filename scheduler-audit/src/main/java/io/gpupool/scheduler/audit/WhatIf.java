package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.ReplayPools;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.JournalApplier;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Function;

/**
 * Re-runs recorded inputs under other engine settings. Every input but the sink's job events is
 * replayed as recorded; a job's STARTED and end events are re-timed from its observed run
 * ({@link ObservedRuns}: the k-th placement by the k-th recorded run) relative to where the re-run places
 * it; a run still going when the record stops has no end event, so it holds its GPUs to the end. When a re-timed event falls on the
 * recorded one (same job, type and time), it takes the recorded entry's place in the journal, so the
 * recorded settings reproduce the recorded history exactly. The settings are the journal's (EngineSettings
 * entries), with the what-if's overrides laid over them.
 */
public final class WhatIf {
    /** A re-timed sink event of one run of a job, about that run's placement. */
    private record Pending(long atMs, long seq, String jobId, JobEventType type, int run, String placementId) {
    }

    private WhatIf() {
    }

    /** The recorded history's figures: the recorded decisions, with the engine state from an audit-style re-run. */
    public static RunStats recorded(final List<JournalRecord> journal, final List<PlacementDecision> recorded,
                                    final Function<String, EngineConfig> configs) {
        final RecordedDecisions byCause = RecordedDecisions.of(recorded);
        final JournalApplier applier = JournalApplier.offline();
        final ReplayPools pools = new ReplayPools(configs);
        final Map<String, PoolEngine> engines = pools.engines();
        final HistoryBook book = new HistoryBook();
        final List<RunStats.Sample> samples = RunStats.newSeries();
        for (final JournalRecord r : journal) {
            book.entry(r);
            pools.apply(applier, r.entry(), r.position());
            final var mine = byCause.take(r.partition(), r.offset());
            mine.values().forEach(book::decision);
            if (!mine.isEmpty() || samples.isEmpty()) {
                samples.add(RunStats.sample(r.timestampMs(), engines));
            }
        }
        if (!journal.isEmpty()) {
            samples.add(RunStats.sample(journal.get(journal.size() - 1).timestampMs(), engines));
        }
        return new RunStats("recorded", book.jobs(), samples);
    }

    public static RunStats rerun(final String label, final List<JournalRecord> journal,
                                 final List<PlacementDecision> recorded, final Function<String, EngineConfig> configs) {
        return rerun(label, journal, recorded, configs, Map.of());
    }

    /**
     * @param configs   the configuration of each pool until its first journaled settings
     * @param overrides laid over every journaled setting: the what-if runs the journal's configuration
     *                  with these keys changed, from start to end
     */
    public static RunStats rerun(final String label, final List<JournalRecord> journal,
                                 final List<PlacementDecision> recorded, final Function<String, EngineConfig> configs,
                                 final Map<String, String> overrides) {
        final Rerun run = new Rerun(configs, new ObservedRuns(journal, recorded), JournalApplier.offline(overrides));
        long syntheticOffset = -1;
        for (final JournalRecord r : journal) {
            final long t = r.timestampMs();
            // re-timed events due before this entry
            while (!run.pending.isEmpty() && run.pending.peek().atMs() < t) {
                final Pending p = run.pending.poll();
                if (run.current(p)) {
                    run.apply(synthetic(p, run.poolOf.get(p.jobId()), syntheticOffset--));
                }
            }
            if (r.entry().getPayload() instanceof JobEvent e && e.getType() != JobEventType.APPLIED) {
                final Pending matching = run.takeMatching(e, t);
                if (matching == null) {
                    continue; // the re-run placed this job at another time: its own re-timed event stands for it
                }
                // the recorded event, about the re-run's placement (the same one under the recorded settings)
                run.apply(aboutPlacement(r, e, matching.placementId()));
                continue;
            }
            run.apply(r);
        }
        if (!journal.isEmpty()) {
            run.samples.add(RunStats.sample(journal.get(journal.size() - 1).timestampMs(), run.engines));
        }
        return new RunStats(label, run.book.jobs(), run.samples);
    }

    /** The state of one re-run. */
    private static final class Rerun {
        final Function<String, EngineConfig> configs;
        final ObservedRuns observed;
        final JournalApplier applier;
        final ReplayPools pools;
        final Map<String, PoolEngine> engines;
        final Map<String, String> poolOf = new HashMap<>();
        /** Per job, how many times its allocation changed: pending events of an older run are void. */
        final Map<String, Integer> runOf = new HashMap<>();
        /** Per job, how many times the re-run placed it: its k-th placement runs as the k-th recorded run. */
        final Map<String, Integer> placements = new HashMap<>();
        final HistoryBook book = new HistoryBook();
        final List<RunStats.Sample> samples = RunStats.newSeries();
        final PriorityQueue<Pending> pending = new PriorityQueue<>((a, b) -> a.atMs != b.atMs
                ? Long.compare(a.atMs, b.atMs) : Long.compare(a.seq, b.seq));
        long seq;

        Rerun(final Function<String, EngineConfig> configs, final ObservedRuns observed, final JournalApplier applier) {
            this.configs = configs;
            this.observed = observed;
            this.pools = new ReplayPools(configs);
            this.engines = pools.engines();
            this.applier = applier;
        }

        boolean current(final Pending p) {
            return runOf.getOrDefault(p.jobId(), -1) == p.run();
        }

        Pending takeMatching(final JobEvent e, final long t) {
            for (final Pending p : pending) {
                if (p.atMs() == t && p.jobId().equals(e.getJobId().toString()) && p.type() == e.getType() && current(p)) {
                    pending.remove(p);
                    return p;
                }
            }
            return null;
        }

        void apply(final JournalRecord r) {
            final String pool = r.entry().getPool().toString();
            book.entry(r);
            final Applied a = pools.apply(applier, r.entry(), r.position());
            for (final PlacementDecision d : a.decisions()) {
                book.decision(d);
                final String job = d.getJobId().toString();
                poolOf.put(job, pool);
                if (d.getOutcome() == DecisionOutcome.PLACED) {
                    final int run = runOf.merge(job, 1, Integer::sum);
                    final ObservedRuns.Run o = observed.of(job, placements.merge(job, 1, Integer::sum) - 1);
                    if (o != null) {
                        final long start = r.timestampMs() + Math.max(0, o.startLagMs());
                        if (o.startLagMs() >= 0) {
                            pending.add(new Pending(start, seq++, job, JobEventType.STARTED, run, d.getDecisionId()));
                        }
                        if (o.ended()) { // a run still going when the record stops keeps its GPUs to the end
                            pending.add(new Pending(start + o.runtimeMs(), seq++, job, o.end(), run, d.getDecisionId()));
                        }
                    }
                } else if (d.getOutcome() != DecisionOutcome.QUEUED) {
                    runOf.merge(job, 1, Integer::sum);
                }
            }
            if (!a.decisions().isEmpty() || samples.isEmpty()) {
                samples.add(RunStats.sample(r.timestampMs(), engines));
            }
        }
    }

    private static JournalRecord aboutPlacement(final JournalRecord r, final JobEvent e, final String placementId) {
        if (placementId.equals(e.getPlacementId())) {
            return r;
        }
        final JobEvent rebound = JobEvent.newBuilder(e).setPlacementId(placementId).build();
        return new JournalRecord(r.partition(), r.offset(), JournalEntry.newBuilder(r.entry()).setPayload(rebound).build());
    }

    private static JournalRecord synthetic(final Pending p, final String pool, final long offset) {
        final JobEvent e = JobEvent.newBuilder().setJobId(p.jobId()).setEventId("whatif-" + p.type() + "-" + p.jobId()
                + "-" + p.run()).setType(p.type()).setPlacementId(p.placementId())
                .setOccurredAt(Instant.ofEpochMilli(p.atMs())).build();
        return new JournalRecord(-1, offset, JournalEntry.newBuilder().setPool(pool)
                .setTimestamp(Instant.ofEpochMilli(p.atMs())).setSource(null).setPayload(e).build());
    }
}
