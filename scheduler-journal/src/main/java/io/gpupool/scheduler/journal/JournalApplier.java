package io.gpupool.scheduler.journal;

import io.gpupool.avro.CongestionChange;
import io.gpupool.avro.CongestionLevel;
import io.gpupool.avro.EngineSettings;
import io.gpupool.avro.GpuCondition;
import io.gpupool.avro.GpuHealth;
import io.gpupool.avro.GpuHealthChange;
import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JobCancel;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.LinkHealth;
import io.gpupool.avro.LinkStateChange;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.ShedSubmit;
import io.gpupool.avro.Tick;
import io.gpupool.avro.UplinkChange;
import io.gpupool.avro.UtilisationBand;
import io.gpupool.avro.UtilisationBandChange;
import io.gpupool.scheduler.core.EngineInput;
import io.gpupool.scheduler.core.EngineOutput;
import io.gpupool.scheduler.core.JobEventNote;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies one journal entry to its pool's engine and returns the wire records it caused. The one
 * place where journal entries become engine inputs, shared by the placer and the offline replay, so
 * that both produce the same bytes. Checks that are about the wire form (malformed job id, a second
 * submit under a used id, zero GPUs, a tenant's topic carrying another tenant's job) are decided here, from
 * the journal alone.
 */
public final class JournalApplier {
    /** Tick reason of a node's heartbeat, for humans (the tick's nodeId makes it one; see LegacyJournalFacts). */
    public static final String HEARTBEAT = "heartbeat";
    /** Reason code of a submit written to one tenant's job topic that names another tenant. */
    public static final String WRONG_TENANT = "WRONG_TENANT";
    /** Reason code of a submit stage 1 shed ({@link JournalEntry#getShed}): the placer's backlog was over its limit. */
    public static final String OVERLOADED = "OVERLOADED";

    private final JobBook book;
    private final JobRetention retention;
    private final Map<String, GpuUuids> uuidsByPool = new HashMap<>();
    private final JournaledSettings settings;
    /** Set while {@link #reapply} runs: the book is already past the entry, so it is read as of it and not changed. */
    private boolean reapplying;

    public JournalApplier(final JobBook book) {
        this(book, Map.of());
    }

    /** @param overrides settings laid over every journaled EngineSettings entry (a what-if replay's); empty: as journaled */
    public JournalApplier(final JobBook book, final Map<String, String> overrides) {
        this.book = book;
        this.settings = new JournaledSettings(overrides);
        this.retention = new JobRetention(book);
    }

    /**
     * An applier with its job book in memory, for offline replays. Like the placer's book, it is the
     * book of one journal partition: a replay of several partitions uses one applier per partition.
     */
    public static JournalApplier offline() {
        return new JournalApplier(JobBook.inMemory());
    }

    /** An offline applier whose engines take {@code overrides} over every journaled setting (what-if). */
    public static JournalApplier offline(final Map<String, String> overrides) {
        return new JournalApplier(JobBook.inMemory(), overrides);
    }

    /**
     * The job book as the section an engine snapshot carries: every job id seen (a second submit of
     * one is a duplicate), with the full request of each job still live in one of {@code engines}
     * (its node commands need it) and only position and command id of the others.
     */
    public byte[] jobBookSnapshot(final Collection<PoolEngine> engines) {
        return JobBookSection.write(book, id -> {
            for (final PoolEngine e : engines) {
                if (e.isLive(id)) {
                    return true;
                }
            }
            return false;
        });
    }

    /**
     * Adds the job book section of a snapshot ({@link #jobBookSnapshot}) to this applier's book, as
     * the book was when the snapshot was taken. Sections of several pools of one partition may be
     * added: a job's record is its first submit in all of them, and a full record wins over a slim one.
     */
    public void restoreJobBook(final byte[] section) {
        JobBookSection.read(section, (id, record, expiry) -> {
            final JobRecord known = book.get(id);
            if (known == null || known.request() == null) {
                book.put(id, record);
            }
            if (expiry != null && book.expiry(id) == null) {
                book.finished(id, expiry);
            }
        });
    }

    /**
     * Forgets what this applier derived from a pool's engine (GPU uuids by node), for when that engine is
     * replaced by a rebuilt one ({@link SkippedEntry}): an entry that failed half-way may have cached views of
     * the state it was changing.
     */
    public void forgetPool(final String pool) {
        uuidsByPool.remove(pool);
    }

    /**
     * Applies an entry a second time, to rebuild its engine after a restart: the job book already holds
     * what the entry did (and what later entries did), so it is read as the entry first found it
     * ({@link JobBook#asOf}) and left as it is. The engine gets the same inputs it got the first time.
     */
    public Applied reapply(final PoolEngine engine, final JournalEntry entry, final JournalPosition cause) {
        reapplying = true;
        try {
            return apply(engine, entry, cause);
        } finally {
            reapplying = false;
        }
    }

    /**
     * What an entry the engine threw on produces ({@link SkippedEntry}), given the engine rebuilt as it was
     * before it. A skipped submit may have taken its job id: that job finished at once, so its record expires
     * like any other finished job's.
     */
    public Applied skipped(final PoolEngine rebuilt, final JournalEntry entry, final JournalPosition cause,
                           final RuntimeException error) {
        final Applied outcome = SkippedEntry.outcome(entry, cause, error);
        final JobRecord taken = outcome.submittedJob() == null ? null : book.get(outcome.submittedJob());
        if (!reapplying && taken != null && taken.sameEntry(cause.getPartition(), cause.getOffset())) {
            retention.ended(entry.getPool(), rebuilt, outcome.submittedJob(), cause);
        }
        return outcome;
    }

    public Applied apply(final PoolEngine engine, final JournalEntry entry, final JournalPosition cause) {
        final String pool = entry.getPool();
        final GpuUuids uuids = uuidsByPool.computeIfAbsent(pool, p -> new GpuUuids());
        final long ts = entry.getTimestamp().toEpochMilli();
        if (!reapplying) {
            retention.expireDue(pool, engine, ts, cause);
        }
        final Object payload = entry.getPayload();
        if (payload instanceof JobCommand c) {
            return job(pool, engine, uuids, c, entry, cause);
        }
        if (payload instanceof EngineSettings s) {
            return settings.apply(engine, pool, s, cause);
        }
        final EngineInput input;
        try {
            input = input(engine, uuids, payload, entry, ts);
        } catch (IllegalArgumentException e) {
            return Applied.NOTHING; // e.g. an inventory the engine cannot take; stage 1 dead-letters those first
        }
        if (input == null) {
            return Applied.NOTHING;
        }
        return map(pool, engine.apply(input), engine, uuids, cause, null);
    }

    private Applied job(final String pool, final PoolEngine engine, final GpuUuids uuids, final JobCommand c,
                        final JournalEntry entry, final JournalPosition cause) {
        final String jobId = c.getJobId();
        final String badId = JobRequestMapper.badJobId(jobId);
        final String key = entry.getSource() == null ? null : entry.getSource().getKey();
        final String writer = writingTenant(entry);
        if (c.getCommand() instanceof JobCancel cancel) {
            if (badId != null) {
                return Applied.NOTHING; // no such job can exist
            }
            final String owner = writer == null ? null : engine.job(jobId).map(JobView::tenant).orElse(null);
            if (owner != null && !owner.equals(writer)) {
                return new Applied(List.of(), List.of(), null, new JobEventNote(jobId, JobEventNote.Kind.REFUSED,
                        "cancel refused: job " + jobId + " is tenant " + owner + "'s, and this cancel was written to "
                                + entry.getSource().getTopic() + ", tenant " + writer + "'s job topic"));
            }
            return map(pool, engine.apply(new EngineInput.CancelJob(entry.getTimestamp().toEpochMilli(), jobId, cancel.getReason())),
                    engine, uuids, cause, null);
        }
        final JobSubmit submit = (JobSubmit) c.getCommand();
        if (badId != null) {
            return rejected(pool, jobId, "INVALID_REQUEST", badId, cause);
        }
        if (key != null && !key.equals(jobId)) {
            return rejected(pool, jobId, "INVALID_REQUEST", "record key '" + key + "' differs from job id '" + jobId
                    + "'", cause);
        }
        if (writer != null && !writer.equals(submit.getRequest().getTenant())) {
            // refused before it takes the id: a tenant cannot hold another's job ids by naming them
            return rejected(pool, jobId, WRONG_TENANT, "written to " + entry.getSource().getTopic() + ", tenant " + writer
                    + "'s job topic, but the request names tenant '" + submit.getRequest().getTenant()
                    + "': a tenant's topic takes only that tenant's jobs (send tenant=" + writer + ")", cause);
        }
        final JobRecord known = reapplying ? book.asOf(jobId, cause.getOffset()) : book.get(jobId);
        if (known != null && !known.sameEntry(cause.getPartition(), cause.getOffset())) {
            if (known.commandId().equals(c.getCommandId())) {
                return Applied.NOTHING; // the same command produced twice: it was already handled
            }
            return rejected(pool, jobId, "DUPLICATE_JOB", "job id " + jobId + " was already submitted (journal "
                    + known.partition() + "@" + known.offset() + ")", cause);
        }
        final String unknown = JobRequestMapper.unknownValue(submit.getRequest());
        final String invalid = unknown != null ? unknown : JobRequestMapper.invalid(submit.getRequest());
        if (entry.getShed() != null && invalid == null) {
            // before it takes the id, which stays free; an invalid request is told why instead, as that answer holds
            return rejected(pool, jobId, OVERLOADED, overloaded(entry), cause);
        }
        // An entry re-applied after a restart finds its own record; a slim one (a format-2 snapshot's book
        // can hold one for a job still live in another pool of the partition) gets its request back.
        if (!reapplying && (known == null || known.request() == null)) {
            book.put(jobId, new JobRecord(cause.getPartition(), cause.getOffset(), c.getCommandId(),
                    submit.getRequest()));
        }
        if (invalid != null) {
            if (!reapplying) {
                retention.ended(pool, engine, jobId, cause); // its id is taken: it finished at once
            }
            return rejected(pool, jobId, unknown != null ? JobRequestMapper.UNKNOWN_VALUE : "INVALID_REQUEST", invalid, cause);
        }
        final EngineOutput out = engine.apply(new EngineInput.SubmitJob(entry.getTimestamp().toEpochMilli(),
                JobRequestMapper.toSpec(jobId, submit.getRequest())));
        return map(pool, out, engine, uuids, cause, jobId);
    }

    /**
     * The tenant whose job topic the command was written to (stage 1 records it from the topic the record
     * came from, which the broker's ACLs guard), or null for the shared jobs topic: there the request's tenant
     * is taken as written, by whoever may write that topic.
     */
    private static String writingTenant(final JournalEntry entry) {
        return entry.getSource() == null ? null : entry.getSource().getTenant();
    }

    private EngineInput input(final PoolEngine engine, final GpuUuids uuids, final Object payload,
                              final JournalEntry entry, final long ts) {
        if (payload instanceof InventoryChange inv) {
            uuids.forget(inv.getNodeId());
            if (inv.getRemoved() || inv.getInventory() == null) {
                return new EngineInput.NodeRemoval(ts, inv.getNodeId());
            }
            return new EngineInput.NodeUpsert(ts, InventoryMapper.toNodeSpec(inv.getInventory()));
        }
        if (payload instanceof GpuHealthChange h) {
            final int gpu = h.getGpuIndex() != null ? h.getGpuIndex()
                    : LegacyJournalFacts.gpuIndex(engine, uuids, h.getNodeId(), h.getGpuUuid());
            if (gpu < 0) {
                return null;
            }
            if (h.getHealth() == GpuHealth.HEALTHY) {
                return EngineInput.GpuHealthFact.healthy(ts, h.getNodeId(), gpu);
            }
            if (h.getHealth() != GpuHealth.UNHEALTHY) {
                return new EngineInput.NodeHeartbeat(ts, h.getNodeId()); // STALE/UNKNOWN: the engine times out on its own
            }
            return unhealthy(engine, h, gpu, ts);
        }
        if (payload instanceof UtilisationBandChange u) {
            // the engine must know the GPU: a fact about one it does not know changes nothing, not even its clock
            final int gpu = u.getGpuIndex() != null ? uuids.known(engine, u.getNodeId(), u.getGpuIndex())
                    : LegacyJournalFacts.gpuIndex(engine, uuids, u.getNodeId(), u.getGpuUuid());
            if (gpu < 0) {
                return null;
            }
            final double pct = u.getUtilizationGpuPct() != null ? u.getUtilizationGpuPct() : typicalPct(u.getBand());
            return new EngineInput.GpuUtilisationFact(ts, u.getNodeId(), gpu, (int) Math.round(pct));
        }
        if (payload instanceof LinkStateChange l) {
            return new EngineInput.LinkFact(ts, l.getNodeId(), InventoryMapper.portName(l.getHca(), l.getPort()),
                    l.getHealth() != LinkHealth.DOWN, l.getHealth() == LinkHealth.FLAPPING,
                    l.getHealth() == LinkHealth.DEGRADED);
        }
        if (payload instanceof CongestionChange cc) {
            final boolean congested = cc.getLevel() == CongestionLevel.MODERATE || cc.getLevel() == CongestionLevel.SEVERE;
            final int pct = cc.getUplinkUtilisationPct() == null ? 0 : (int) Math.round(cc.getUplinkUtilisationPct());
            return new EngineInput.LeafUplinkFact(ts, cc.getLeaf(), congested, pct);
        }
        if (payload instanceof UplinkChange u) {
            final Double pct = u.getUplinkUtilisationPct();
            return new EngineInput.NodeUplinkFact(ts, u.getNodeId(),
                    pct == null ? -1 : (int) Math.max(0, Math.min(100, Math.round(pct))));
        }
        if (payload instanceof JobEvent e) {
            final EngineInput.JobEventKind kind = switch (e.getType()) {
                case STARTED -> EngineInput.JobEventKind.STARTED;
                case COMPLETED -> EngineInput.JobEventKind.COMPLETED;
                case FAILED -> EngineInput.JobEventKind.FAILED;
                case EVICTED -> EngineInput.JobEventKind.EVICTED;
                case RELEASED -> EngineInput.JobEventKind.RELEASED;
                default -> null; // APPLIED: the sink has it; nothing changes for the engine
            };
            return kind == null ? null
                    : new EngineInput.JobReport(ts, e.getJobId(), kind, placementOf(e), e.getNodeId(), e.getReason());
        }
        if (payload instanceof Tick t) {
            final String node = t.getNodeId() != null ? t.getNodeId() : LegacyJournalFacts.heartbeatNode(t, entry);
            return node != null ? new EngineInput.NodeHeartbeat(ts, node) : new EngineInput.ClockTick(ts);
        }
        return null;
    }

    /**
     * The placement an event is about. Sinks from before placement ids named it only as the decision id of
     * the ALLOCATE their part came from, which holds for every event but EVICTED (that one carries the
     * eviction's decision id, which names no placement, so it changes nothing, as an answer to an EVICT must).
     */
    private static String placementOf(final JobEvent e) {
        if (e.getPlacementId() != null) {
            return e.getPlacementId();
        }
        return e.getType() == JobEventType.EVICTED || e.getDecisionId() == null ? "" : e.getDecisionId();
    }

    /** An unhealthy GPU's fact, from its typed conditions (a pre-change entry's are read from its text). */
    private static EngineInput.GpuHealthFact unhealthy(final PoolEngine engine, final GpuHealthChange h, final int gpu,
                                                       final long ts) {
        final boolean legacy = LegacyJournalFacts.isLegacy(h);
        final List<GpuCondition> conditions = legacy ? LegacyJournalFacts.conditions(h) : h.getConditions();
        final Double reading = legacy ? LegacyJournalFacts.temperatureC(h) : h.getTemperatureC();
        final int xid = conditions.contains(GpuCondition.XID) ? firstCritical(engine, h.getXidCodes()) : 0;
        int temperature = -1;
        if (conditions.contains(GpuCondition.OVERHEAT)) {
            // stage 1 judged it too hot: without a reading, just above the engine's threshold keeps it out
            temperature = reading != null ? (int) Math.round(reading) : engine.config().temperatureThresholdC() + 1;
        }
        return new EngineInput.GpuHealthFact(ts, h.getNodeId(), gpu, xid, conditions.contains(GpuCondition.ECC_UNCORRECTABLE),
                conditions.contains(GpuCondition.ROW_REMAP_FAILURE), conditions.contains(GpuCondition.ROW_REMAP_PENDING),
                temperature);
    }

    /** A band's typical utilisation, for a band move journaled without its reading. */
    private static double typicalPct(final UtilisationBand band) {
        return switch (band) {
            case UNKNOWN, IDLE -> 0;
            case LOW -> 15;
            case MEDIUM -> 50;
            case HIGH -> 90;
        };
    }

    private static int firstCritical(final PoolEngine engine, final List<Integer> xids) {
        for (final int x : xids) {
            if (engine.config().criticalXids().contains(x)) {
                return x;
            }
        }
        return xids.isEmpty() ? 0 : xids.get(0);
    }

    private Applied map(final String pool, final EngineOutput out, final PoolEngine engine, final GpuUuids uuids,
                        final JournalPosition cause, final String submittedJob) {
        if (out.isEmpty() && submittedJob == null) {
            return out.eventNote() == null ? Applied.NOTHING : new Applied(List.of(), List.of(), null, out.eventNote());
        }
        // a re-applied entry's outputs are dropped, so the requests its node commands carry do not matter
        final Applied applied = DecisionMapper.map(pool, out, engine, uuids, book, cause, submittedJob);
        if (!reapplying) {
            for (final PlacementDecision d : applied.decisions()) {
                retention.ended(pool, engine, d.getJobId(), cause);
            }
        }
        return applied;
    }

    /** The words of a shed submit's rejection, from what stage 1 measured. */
    private static String overloaded(final JournalEntry entry) {
        final ShedSubmit shed = entry.getShed();
        return "not admitted: the scheduler is behind its input (journal partition " + shed.getJournalPartition()
                + " held " + shed.getBacklogEntries() + " entries not yet applied, over the limit of "
                + shed.getLimitEntries() + "); the job was neither placed nor queued and its id is free: submit it again later";
    }

    private static Applied rejected(final String pool, final String jobId, final String code, final String message,
                                    final JournalPosition cause) {
        return new Applied(List.of(DecisionMapper.rejection(pool, jobId, code, message, cause)), List.of(), jobId);
    }
}
