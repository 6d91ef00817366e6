package io.gpupool.scheduler.audit;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.ModelCapacity;
import io.gpupool.scheduler.core.PendingAdvice;
import io.gpupool.scheduler.core.PlacementPart;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.DecisionWording;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.ReplayPools;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A job at a past moment, rebuilt from the recorded history: the engine re-run up to the last journal
 * entry at or before that time (from a snapshot when one is given), then asked what it would have
 * answered then: the job's state and reason, the jobs queued ahead of it and the capacity it saw.
 */
public final class PointInTime {
    /** What {@code gpupool explain JOB --at TIME} shows. */
    public record Explanation(String jobId, String pool, long atMs, JournalRecord lastEntry, JobView job,
                              List<JobView> ahead, Map<String, ModelCapacity> capacity, List<PlacementDecision> decisions,
                              PendingAdvice advice) {

        public void print(final PrintWriter out) {
            out.printf("job %s in pool %s at %s (state after journal %s):%n", jobId, pool, Instant.ofEpochMilli(atMs),
                    lastEntry == null ? "entries up to the engine snapshot" : lastEntry.partition() + "@" + lastEntry.offset());
            if (job == null) {
                out.println("  not submitted yet (or unknown to the pool)");
                out.flush();
                return;
            }
            out.printf("  state: %s%n", job.state().name().toLowerCase(Locale.ROOT));
            if (job.currentReason() != null) {
                out.printf("  reason: %s: %s%n", job.currentReason().code(), job.currentReason().message());
                new TreeMap<>(job.currentReason().evidence()).forEach((k, v) -> out.printf("    %s: %s%n", k, v));
            }
            for (final PlacementPart a : job.placement()) {
                out.printf("  on %s GPUs %s%n", a.nodeId(), a.gpus());
            }
            out.printf("  jobs ahead of it: %d%n", ahead.size());
            for (final JobView j : ahead) {
                out.printf("    %s (tenant %s, class %s, priority %d, waiting since %s)%n", j.jobId(), j.tenant(),
                        j.priorityClass(), j.priority(), Instant.ofEpochMilli(j.submittedMs()));
            }
            if (advice != null) {
                printAdvice(out, advice);
            }
            out.println("  capacity it saw:");
            capacity.forEach((model, c) -> out.printf("    %s: total %d, allocatable %d, unhealthy %d, allocated %d, free %d%n",
                    model, c.total(), c.allocatable(), c.unhealthy(), c.allocated(), c.free()));
            out.printf("  decisions up to then: %d%n", decisions.size());
            for (final PlacementDecision d : decisions) {
                out.printf("    %s %s %s: %s (journal %d@%d)%n", d.getCause().getTimestamp(), d.getOutcome(),
                        d.getReasonCode(), DecisionWording.message(d), d.getCause().getPartition(), d.getCause().getOffset());
            }
            out.flush();
        }
    }

    /** What would have placed it then and what it waited for (the jobs ahead are listed above). */
    private static void printAdvice(final PrintWriter out, final PendingAdvice a) {
        out.println(a.wouldRunIf().isEmpty() ? "  would have run then if: no single change to the request"
                : "  would have run then if (any one of):");
        a.wouldRunIf().forEach(c -> out.printf("    %s%n", c.text()));
        if (a.waitingForCount() > 0) {
            out.printf("  waiting for %d running job%s:%n", a.waitingForCount(), a.waitingForCount() == 1 ? "" : "s");
            for (final PendingAdvice.Holder h : a.waitingFor()) {
                out.printf("    %s (tenant %s, %s on %s, expected end %s)%n", h.jobId(), h.tenant(),
                        h.gpuMilli() % 1000 == 0 ? h.gpuMilli() / 1000 + " GPUs" : h.gpuMilli() + " milli-GPU",
                        String.join(",", h.nodes()), h.expectedEndMs() == Long.MAX_VALUE ? "never"
                                : Instant.ofEpochMilli(h.expectedEndMs()));
            }
        }
        a.notes().forEach(n -> out.printf("  note: %s%n", n));
    }

    private PointInTime() {
    }

    /**
     * @param snapshots per pool, a snapshot taken at or before {@code atMs} to start from (may be empty)
     * @param recorded  the job's recorded decisions (listed as its history up to then)
     */
    public static Explanation explain(final Iterator<JournalRecord> journal, final Map<String, EngineSnapshot> snapshots,
                                      final List<PlacementDecision> recorded, final String jobId, final long atMs,
                                      final Function<String, EngineConfig> configs) {
        final Map<Integer, JournalApplier> appliers = new HashMap<>(); // one job book per journal partition
        final ReplayPools engines = new ReplayPools(configs);
        final Map<String, JournalRecord> lastOfPool = new HashMap<>();
        String pool = null;
        for (final PlacementDecision d : recorded) {
            if (d.getJobId().toString().equals(jobId)) {
                pool = d.getPool().toString();
            }
        }
        // pools start from their snapshot even when no later entry precedes the moment
        snapshots.forEach((p, snap) -> {
            engines.startFrom(p, snap.engine());
            if (snap.hasJobBook()) {
                appliers.computeIfAbsent(snap.partition(), x -> JournalApplier.offline()).restoreJobBook(snap.jobBook());
            }
        });
        while (journal.hasNext()) {
            final JournalRecord r = journal.next();
            if (r.timestampMs() > atMs) {
                continue;
            }
            final String p = r.entry().getPool().toString();
            final EngineSnapshot snap = snapshots.get(p);
            if (snap != null && snap.partition() == r.partition() && r.offset() <= snap.offset()) {
                continue;
            }
            if (pool == null && r.entry().getPayload() instanceof JobCommand c && c.getCommand() instanceof JobSubmit
                    && c.getJobId().toString().equals(jobId)) {
                pool = p;
            }
            final Applied ignored = engines.apply(appliers.computeIfAbsent(r.partition(), x -> JournalApplier.offline()),
                    r.entry(), r.position());
            lastOfPool.put(p, r);
        }
        final PoolEngine engine = pool == null ? null : engines.engine(pool);
        final JobView job = engine == null ? null : engine.job(jobId).orElse(null);
        final List<JobView> ahead = new ArrayList<>();
        if (engine != null && job != null) {
            for (final JobView q : engine.queuedJobs()) {
                if (q.jobId().equals(jobId)) {
                    break;
                }
                ahead.add(q);
            }
            if (ahead.size() == engine.queuedJobs().size()) {
                ahead.clear(); // not queued: nobody is ahead of it
            }
        }
        final List<PlacementDecision> mine = recorded.stream().filter(d -> d.getJobId().toString().equals(jobId))
                .filter(d -> d.getCause().getTimestamp().toEpochMilli() <= atMs).toList();
        return new Explanation(jobId, pool == null ? "?" : pool, atMs, pool == null ? null : lastOfPool.get(pool), job,
                ahead, engine == null ? Map.of() : engine.capacity().byModel(), mine,
                engine == null ? null : engine.advice(jobId).orElse(null));
    }
}
