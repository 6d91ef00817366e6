package io.gpupool.scheduler.stream;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.JobEventNote;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.BookChanges;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JobBook;
import io.gpupool.scheduler.journal.JobBookTopic;
import io.gpupool.scheduler.journal.JobRecord;
import io.gpupool.scheduler.journal.JobRequestMapper;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.KeyedJobBook;
import io.gpupool.scheduler.journal.SkippedEntry;
import io.gpupool.scheduler.journal.SnapshotChunks;
import io.gpupool.serde.RecordDecodeException;
import io.gpupool.serde.WireFormat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 2: reads only the journal, drives one engine per pool and emits decisions (key job id) and
 * node commands (key node id), each carrying the journal position that caused it. Engine state is
 * kept in {@link EngineStore} as snapshots that name the journal offset they cover; on init each pool
 * is restored from its snapshot and the journal entries after it, re-read from the journal up to the
 * committed offset ({@link JournalTail}), with their outputs suppressed (they were emitted, exactly once,
 * the first time).
 */
public final class PlacerProcessor implements Processor<byte[], byte[], Object, Object> {
    public static final String JOB_STORE = "placer-jobs";
    public static final String DECISIONS_SINK = "decisions-sink";
    public static final String COMMANDS_SINK = "node-commands-sink";
    public static final String SNAPSHOTS_SINK = "engine-snapshots-sink";
    /** Key in the job store (job ids have no '#') marking that its records are all on the snapshot topic. */
    static final String BOOK_ON_TOPIC = "#book-on-topic";
    private static final Logger LOG = LoggerFactory.getLogger(PlacerProcessor.class);
    /** Entries a tail holds at least before its size alone calls for a snapshot ({@link #snapshotDue}). */
    static final int MIN_TAIL_ENTRIES = 1_000;
    /**
     * Journal bytes a tail holds per byte of the snapshot it follows before its size alone calls for the next
     * ({@link #snapshotDue}). A snapshot is written twice (the store's changelog and the snapshot topic), so at 1
     * the snapshots wrote two bytes for every journal byte, more than the journal itself; at 4 they write half a
     * byte. What a restore re-applies and the undo tail holds stay bounded by {@code --snapshot-every} entries
     * ({@link #MAX_SNAPSHOT_EVERY_STRETCH} times that for a large snapshot).
     */
    static final int TAIL_BYTES_PER_SNAPSHOT_BYTE = 4;
    /**
     * Snapshot bytes a tail entry may carry at most, as far as {@link #MAX_SNAPSHOT_EVERY_STRETCH} allows: a pool
     * whose snapshot is larger than {@code --snapshot-every} entries x this is snapshotted less often
     * ({@link #entriesPerSnapshot}). With 100,000 jobs waiting in a full 4,096-GPU pool a snapshot is about 60 MB:
     * every 50,000 entries that was 1,200 bytes per entry, written twice, and a stop of the placer each time.
     */
    static final int SNAPSHOT_BYTES_PER_TAIL_ENTRY = 256;
    /** How far a large snapshot stretches {@code --snapshot-every} at most: this bounds a restart's replay. */
    static final int MAX_SNAPSHOT_EVERY_STRETCH = 4;
    /**
     * A smaller snapshot never stretches {@code --snapshot-every}: it stops the placer for milliseconds (0.64 MB:
     * 39-72 ms in the cost bench), and an interval that short was chosen on purpose (audits from many snapshots).
     */
    static final long MIN_STRETCHED_SNAPSHOT_BYTES = 1 << 20;
    private static final ThrottledWarnings REFUSALS = new ThrottledWarnings(LOG);

    /** A pool this task drives. */
    private static final class Pool {
        final PoolEngines.Handle handle;
        /** Replaced when an entry the engine threw on is undone (rebuilt from the store). */
        PoolEngine engine;
        long generation;
        /** The entries applied since the snapshot, in order: for undoing an entry the engine threw on ({@link #skip}). */
        final List<EngineStore.TailEntry> tail = new ArrayList<>();
        /** Stored in the form of before: its tail is also appended to the tail store, until its next snapshot. */
        boolean legacyTail;
        /** Journal bytes in the tail, and the size of the snapshot it follows (see {@link #snapshotDue}). */
        long tailBytes;
        long snapshotBytes;

        Pool(final PoolEngines.Handle handle, final PoolEngine engine, final long generation) {
            this.handle = handle;
            this.engine = engine;
            this.generation = generation;
        }

        /** Journal offset of the first entry of the tail (a restore re-applies from there); MAX_VALUE: none. */
        long tailFrom() {
            return tail.isEmpty() ? Long.MAX_VALUE : tail.get(0).offset();
        }
    }

    private final Function<String, EngineConfig> configs;
    private final int snapshotEvery;
    private final PoolEngines registry;
    private final SchedulerMetrics metrics;
    private final Deserializer<JournalEntry> journal;
    private final Serializer<PlacementDecision> decisionWriter;
    private final String decisionsTopic;
    private final JournalReader journalReader;
    private final ViewPublisher views;
    private final CommitCadence cadence;
    private final Map<String, Pool> pools = new HashMap<>();
    private ProcessorContext<Object, Object> context;
    private EngineStore store;
    private KeyValueStore<String, byte[]> history;
    private JournalApplier applier;
    private KeyValueStore<String, byte[]> jobs;
    private KeyedJobBook book;
    /** This task's job store is on the snapshot topic (see {@link #publishBookOnce}). */
    private boolean bookPublished;
    /** Set once init() has rebuilt the engines: from then on new job ids go to the snapshot topic too. */
    private boolean restored;
    /** The timestamp of the journal record being processed, for the book records it causes. */
    private long recordTimestamp;

    public PlacerProcessor(final Function<String, EngineConfig> configs, final int snapshotEvery, final PoolEngines registry,
                    final SchedulerMetrics metrics, final Codecs codecs, final String decisionsTopic,
                    final JournalReader journalReader, final JournalBacklog backlog) {
        this.configs = configs;
        this.snapshotEvery = snapshotEvery;
        this.registry = registry;
        this.metrics = metrics;
        this.cadence = new CommitCadence(metrics.commitTimes(), backlog::behind);
        this.journal = codecs.deserializer(JournalEntry.class);
        this.decisionWriter = codecs.serializer();
        this.decisionsTopic = decisionsTopic;
        this.journalReader = journalReader;
        this.views = new ViewPublisher(metrics);
    }

    @Override
    public void init(final ProcessorContext<Object, Object> ctx) {
        this.context = ctx;
        cadence.init(ctx);
        this.restored = false; // Streams may init a revived task's processor again
        this.bookPublished = false;
        this.store = new EngineStore(ctx.getStateStore(EngineStore.SNAPSHOTS), ctx.getStateStore(EngineStore.TAIL));
        this.history = ctx.getStateStore(DecisionHistory.STORE);
        final KeyValueStore<String, byte[]> jobs = ctx.getStateStore(JOB_STORE);
        this.jobs = jobs;
        this.book = new KeyedJobBook(new StoreBookMap(jobs), new BookChanges() {
            @Override
            public void taken(final String jobId, final int partition, final byte[] record) {
                if (restored) {
                    // the same record on the snapshot topic, in this transaction: audits from a snapshot read it there.
                    // The applier takes an id once; entries re-applied in init() change no record.
                    publishBookRecord(jobId, partition, JobBookTopic.value(jobId, record));
                }
            }

            @Override
            public void finished(final String jobId, final int partition, final byte[] record,
                                 final JobBook.Expiry expiry) {
                publishBookRecord(jobId, partition, JobBookTopic.value(jobId, record, expiry));
            }

            @Override
            public void expired(final String jobId, final int partition, final long offset, final String pool,
                                final String commandId) {
                history.delete(jobId);
                final Pool p = pools.get(pool);
                if (p != null) {
                    p.handle.history().forget(jobId);
                }
                context.forward(RouteEnds.record(new RouteEnds.Notice(jobId, commandId, pool, true), recordTimestamp),
                        RouteEnds.SINK);
                final Headers headers = new RecordHeaders().add(JobBookTopic.EXPIRED_AT, JobBookTopic.expiredAt(offset));
                context.forward(new Record<Object, Object>(JobBookTopic.key(partition, jobId), null, recordTimestamp,
                        headers), SNAPSHOTS_SINK);
            }
        }, true);
        this.applier = new JournalApplier(book);
        final long restoreStartMs = SchedulerMetrics.wallNowMs();
        final JournalTail.Read read = JournalTail.of(store.load(), ctx.taskId().partition(), journalReader, journal);
        for (final EngineStore.Stored s : read.pools()) {
            final UnflushedHistory decidedAgain = new UnflushedHistory();
            final PoolEngine engine = EngineRestorer.restore(s, configs.apply(s.pool()), applier, journal,
                    decidedAgain.refill(book, history::get));
            final Pool p = new Pool(registry.register(s.pool(), engine, decidedAgain, s.tail().size()), engine,
                    s.generation());
            p.tail.addAll(s.tail());
            p.legacyTail = s.legacy();
            if (!s.tail().isEmpty()) {
                p.handle.advanced(s.tail().get(s.tail().size() - 1).offset());
            }
            p.snapshotBytes = s.snapshot() == null ? 0 : s.snapshot().length;
            p.tailBytes = s.tail().stream().mapToLong(t -> t.journalValue().length).sum();
            pools.put(s.pool(), p);
            // the time since the task's restore began: the tails' journal read is shared by its pools
            LOG.info("pool {} restored: snapshot generation {} plus {} journal entries ({}), {} ms into the task's restore",
                    s.pool(), s.generation(), s.tail().size(), s.legacy() ? "from the tail store of before"
                            : "re-read from the journal after offset " + s.covered() + " up to " + read.committed(),
                    SchedulerMetrics.wallNowMs() - restoreStartMs);
        }
        this.restored = true;
        ctx.schedule(ViewPublisher.EVERY, PunctuationType.WALL_CLOCK_TIME,
                now -> pools.values().forEach(p -> views.publishIfWanted(p.handle, p.engine)));
    }

    @Override
    public void process(final Record<byte[], byte[]> record) {
        cadence.processed();
        final RecordMetadata where = context.recordMetadata().orElse(null);
        final JournalEntry entry;
        try {
            entry = journal.deserialize(where == null ? "?" : where.topic(), record.headers(), record.value());
            if (entry == null) {
                throw new IllegalArgumentException("journal record without a value");
            }
        } catch (final RecordDecodeException e) {
            if (e.retriable()) {
                throw e;
            }
            deadLetter(record, where, e);
            return;
        } catch (final IllegalArgumentException e) {
            deadLetter(record, where, e);
            return;
        }
        final JournalPosition cause = new JournalPosition(where == null ? -1 : where.partition(),
                where == null ? -1 : where.offset(), entry.getTimestamp());
        final long entryMs = entry.getTimestamp().toEpochMilli();
        recordTimestamp = record.timestamp();
        publishBookOnce();
        Pool pool = pools.get(entry.getPool());
        if (pool == null) {
            pool = newPool(entry.getPool(), cause.getOffset() - 1); // a restore re-applies this entry on an empty engine
            pools.put(entry.getPool(), pool);
        }
        Applied applied;
        synchronized (pool.handle) {
            try {
                applied = applier.apply(pool.engine, entry, cause);
            } catch (final RuntimeException e) {
                applied = skip(entry, cause, pool, e);
                // once, here: a skipped entry never reaches the tail, so neither restore nor a replay dead-letters it again
                context.forward(DeadLetters.of(record, where, e.getClass().getName(),
                        SkippedEntry.describe(entry, cause, e)), DeadLetters.SINK);
                metrics.deadLettered(where == null ? "?" : where.topic(), SkippedEntry.CODE);
                metrics.entrySkipped(entry.getPool());
            }
            pool.handle.advanced(cause.getOffset());
        }
        // decisions first: a snapshot stores the histories of what it covers, this entry's included
        emit(entry.getPool(), pool, applied, cause, record.timestamp());
        pool.handle.history().flushDue(history);
        if (applied.skipped() == null) {
            final EngineStore.TailEntry entryApplied = new EngineStore.TailEntry(cause.getPartition(), cause.getOffset(),
                    entryMs, record.value());
            if (pool.legacyTail) {
                store.appendTail(entry.getPool(), pool.generation, pool.tail.size(), entryApplied);
            }
            pool.tail.add(entryApplied);
            pool.tailBytes += record.value().length;
            if (snapshotDue(pool)) {
                snapshot(entry.getPool(), pool, cause, record.timestamp());
            }
        } else {
            // A skipped entry is in no tail, so a restore would not decide it again: its decisions are stored now,
            // with a snapshot that covers it (rare, and the rebuild it took cost more than the snapshot).
            snapshot(entry.getPool(), pool, cause, record.timestamp());
        }
        endRouteOfRecordlessSubmit(entry, record.timestamp());
        if (applied.configChange() != null) {
            LOG.info("{}", applied.configChange().describe());
        }
        if (applied.eventNote() != null) {
            noted(entry, applied.eventNote(), record, where);
        }
        metrics.journalApplied(entryMs);
    }

    /**
     * Undoes an entry the engine threw on: the engine is rebuilt from the pool's snapshot and tail, which hold
     * every entry before this one and not this one, so it is the engine as it was before the entry (an engine
     * bug must not leave a half-changed pool: live state would differ from restored state and from the audit).
     * The caller's lock on the pool is held.
     */
    private Applied skip(final JournalEntry entry, final JournalPosition cause, final Pool pool, final RuntimeException e) {
        LOG.error("{}; the pool's engine is rebuilt from its snapshot and tail", SkippedEntry.describe(entry, cause, e), e);
        applier.forgetPool(entry.getPool());
        pool.engine = EngineRestorer.restore(store.load(entry.getPool()).withTail(pool.tail), configs.apply(entry.getPool()),
                applier, journal);
        pool.handle.replace(pool.engine);
        return applier.skipped(pool.engine, entry, cause, e);
    }

    /**
     * A submit that took no record of its id (a duplicate, or one keyed by another id) needs its stage-1
     * route entry no more: the placer answered it for good. One that took a record keeps its entry until
     * the record expires ({@link BookChanges#expired}), so its cancels and late events still arrive.
     */
    private void endRouteOfRecordlessSubmit(final JournalEntry entry, final long timestamp) {
        if (!(entry.getPayload() instanceof JobCommand c) || !(c.getCommand() instanceof JobSubmit)
                || JobRequestMapper.badJobId(c.getJobId()) != null || entry.getShed() != null) {
            return; // stage 1 keeps no route for a malformed id, nor for a submit it shed
        }
        final JobRecord taken = book.get(c.getJobId());
        if (taken == null || !taken.commandId().equals(c.getCommandId())) {
            context.forward(RouteEnds.record(new RouteEnds.Notice(c.getJobId(), c.getCommandId(), entry.getPool(), false),
                    timestamp), RouteEnds.SINK);
        }
    }

    /**
     * Job ids taken by a scheduler from before the book records (snapshot format 2) are in the job
     * store only: the first record a task processes puts them all on the snapshot topic, once (the
     * marker is written in the same transaction), so that format-3 snapshots find every id taken.
     * A new store has nothing to publish and only gets the marker.
     */
    private void publishBookOnce() {
        if (bookPublished) {
            return;
        }
        if (jobs.get(BOOK_ON_TOPIC) == null) {
            long published = 0;
            try (KeyValueIterator<String, byte[]> it = jobs.all()) {
                while (it.hasNext()) {
                    final KeyValue<String, byte[]> kv = it.next();
                    publishBookRecord(kv.key, JobRecord.fromBytes(kv.value).partition(),
                            JobBookTopic.value(kv.key, kv.value));
                    published++;
                }
            }
            jobs.put(BOOK_ON_TOPIC, new byte[0]);
            if (published > 0) {
                LOG.info("{} job ids taken before book records existed put on the snapshot topic", published);
            }
        }
        bookPublished = true;
    }

    private void publishBookRecord(final String jobId, final int partition, final byte[] value) {
        context.forward(new Record<Object, Object>(JobBookTopic.key(partition, jobId), value, recordTimestamp),
                SNAPSHOTS_SINK);
    }

    private Pool newPool(final String name, final long covered) {
        final PoolEngine engine = new PoolEngine(configs.apply(name));
        store.writeSnapshot(name, 0, null, covered);
        return new Pool(registry.register(name, engine), engine, 0);
    }

    private void snapshot(final String name, final Pool pool, final JournalPosition covered, final long timestamp) {
        final long t0 = SchedulerMetrics.wallNowMs();
        final byte[] bytes;
        synchronized (pool.handle) {
            bytes = pool.engine.snapshot();
        }
        final long t1 = SchedulerMetrics.wallNowMs();
        pool.generation++;
        pool.tail.clear();
        pool.legacyTail = false;
        pool.tailBytes = 0;
        pool.snapshotBytes = bytes.length;
        store.writeSnapshot(name, pool.generation, bytes, covered.getOffset());
        final int histories = pool.handle.history().flushTo(history);
        purgeExpiredRecords();
        // The same state on the snapshot topic, with the journal offset it covers: audit starts there. The
        // job book is on that topic already, a record per job id (JobBookTopic), so it is not written here.
        final long t2 = SchedulerMetrics.wallNowMs();
        final byte[] published = EngineSnapshot.frame(name, covered.getPartition(),
                covered.getOffset(), covered.getTimestamp().toEpochMilli(), bytes);
        for (final SnapshotChunks.Chunk c : SnapshotChunks.split(name, pool.generation, published)) {
            context.forward(new Record<Object, Object>(c.key(), c.value(), timestamp), SNAPSHOTS_SINK);
        }
        final long t3 = SchedulerMetrics.wallNowMs();
        metrics.snapshotTaken(t3 - t0);
        LOG.info("pool {} snapshot {}: engine {} bytes in {} ms, stored with {} job histories in {} ms, published in {} ms",
                name, pool.generation, bytes.length, t1 - t0, histories, t2 - t1, t3 - t2);
    }

    /**
     * A pool is snapshotted every {@code snapshotEvery} entries (more for a large snapshot: {@link
     * #entriesPerSnapshot}), and sooner once its tail holds
     * {@link #TAIL_BYTES_PER_SNAPSHOT_BYTE} journal bytes per byte of its last snapshot (after {@link #MIN_TAIL_ENTRIES}
     * at least): a small pool's restart then re-applies a few snapshots' worth of entries, not up to
     * {@code snapshotEvery} of them, while a snapshot, which stops the placer while it is taken, costs at most a
     * quarter of a snapshot byte per journal byte.
     */
    private boolean snapshotDue(final Pool pool) {
        return pool.tail.size() >= entriesPerSnapshot(snapshotEvery, pool.snapshotBytes)
                || pool.tail.size() >= MIN_TAIL_ENTRIES
                && pool.tailBytes >= TAIL_BYTES_PER_SNAPSHOT_BYTE * pool.snapshotBytes;
    }

    /**
     * Entries between two snapshots of a pool whose last snapshot has {@code snapshotBytes}: {@code snapshotEvery},
     * or as many as carry {@link #SNAPSHOT_BYTES_PER_TAIL_ENTRY} each when the snapshot is larger (and at least
     * {@link #MIN_STRETCHED_SNAPSHOT_BYTES}), up to
     * {@link #MAX_SNAPSHOT_EVERY_STRETCH} x {@code snapshotEvery}. So a deep queue, which makes every snapshot
     * larger, does not make every request write more snapshot bytes and wait out more snapshot stops; a restart of
     * such a pool re-applies up to that many entries.
     */
    static long entriesPerSnapshot(final int snapshotEvery, final long snapshotBytes) {
        if (snapshotBytes < MIN_STRETCHED_SNAPSHOT_BYTES) {
            return snapshotEvery;
        }
        final long stretched = Math.min(snapshotBytes / SNAPSHOT_BYTES_PER_TAIL_ENTRY,
                (long) MAX_SNAPSHOT_EVERY_STRETCH * snapshotEvery);
        return Math.max(snapshotEvery, stretched);
    }

    /**
     * Expired job records are kept for a restore that re-applies an entry from before their expiry
     * ({@link JobBook#asOf}); once every pool's tail starts after it, none can, and they go.
     */
    private void purgeExpiredRecords() {
        long from = Long.MAX_VALUE;
        for (final Pool p : pools.values()) {
            from = Math.min(from, p.tailFrom());
        }
        book.purgeExpiredBefore(from == Long.MAX_VALUE ? Long.MAX_VALUE : from + 1);
    }

    private void emit(final String pool, final Pool p, final Applied applied, final JournalPosition cause,
                      final long timestamp) {
        final long now = SchedulerMetrics.wallNowMs();
        final PoolEngine engine = p.engine;
        final String newJob = tookItsId(applied, cause) ? applied.submittedJob() : null;
        boolean first = true;
        for (final PlacementDecision d : applied.decisions()) {
            // encoded once, for the decisions topic and the job's history
            final byte[] value = decisionWriter.serialize(decisionsTopic, d);
            context.forward(new Record<Object, Object>(d.getJobId(), value, timestamp), DECISIONS_SINK);
            // a job whose id this entry took has no stored history: no need to read it. A shed submit's id is not
            // taken, so no record would ever expire a history kept for it: its decision is on the decisions topic only
            if (!JournalApplier.OVERLOADED.equals(d.getReasonCode())) {
                p.handle.history().appendEncoded(d.getJobId(), value, WireFormat.HEADER_SIZE,
                        d.getJobId().equals(newJob) ? id -> null : history::get);
            }
            metrics.decision(pool, d.getOutcome().name(), d.getReasonCode() == null ? "" : d.getReasonCode());
            if (d.getOutcome() == DecisionOutcome.EVICTED && "PREEMPTED".equals(d.getReasonCode())) {
                metrics.preemption(pool);
            }
            if (d.getOutcome() == DecisionOutcome.PLACED) {
                queueWaited(pool, engine, d.getJobId());
            }
            if (first && d.getJobId().equals(applied.submittedJob())) {
                // the job record's timestamp is the journal entry's (stage 1 keeps it)
                metrics.requestToDecision(now - d.getCause().getTimestamp().toEpochMilli());
                first = false;
            }
        }
        for (final NodeCommand c : applied.commands()) {
            context.forward(new Record<Object, Object>(c.getNodeId(), c, timestamp), COMMANDS_SINK);
        }
    }

    private boolean tookItsId(final Applied applied, final JournalPosition cause) {
        if (applied.submittedJob() == null) {
            return false;
        }
        final JobRecord taken = book.get(applied.submittedJob());
        return taken != null && taken.partition() == cause.getPartition() && taken.offset() == cause.getOffset();
    }

    /** The queue wait of a job placed for the first time (a requeued job's wait would include its earlier runs). */
    private void queueWaited(final String pool, final PoolEngine engine, final String jobId) {
        engine.job(jobId).filter(j -> j.evictions() == 0 && j.placedMs() > 0)
                .ifPresent(j -> metrics.queueWaited(pool, j.tenant(), j.placedMs() - j.submittedMs()));
    }

    /**
     * A late event of an earlier placement is normal (counted); a refused one names a placement or node the
     * scheduler never commanded (a broken or forged sink): it is dead-lettered with the reason, once (an
     * entry re-applied on restore emits nothing).
     */
    private void noted(final JournalEntry entry, final JobEventNote note, final Record<byte[], byte[]> record,
                       final RecordMetadata where) {
        // a job command is refused before the engine (a cancel of another tenant's job): no job event to count
        final boolean command = entry.getPayload() instanceof JobCommand;
        if (!command) {
            metrics.jobEventNoted(entry.getPool(), note.kind().name());
        }
        if (note.kind() == JobEventNote.Kind.REFUSED) {
            final String from = entry.getSource() == null ? "" : " (" + entry.getSource().getTopic() + " "
                    + entry.getSource().getPartition() + "@" + entry.getSource().getOffset() + ")";
            final String kind = command ? "RefusedJobCommand" : "RefusedJobEvent";
            REFUSALS.warn("refused-job-record", "pool {}: job {}: {}{}", entry.getPool(), note.jobId(), note.message(), from);
            context.forward(DeadLetters.of(record, where, kind, note.message() + from), DeadLetters.SINK);
            metrics.deadLettered(where == null ? "?" : where.topic(), kind);
        }
    }

    private void deadLetter(final Record<byte[], byte[]> record, final RecordMetadata where, final Throwable e) {
        context.forward(DeadLetters.of(record, where, e), DeadLetters.SINK);
        metrics.deadLettered(where == null ? "?" : where.topic(), e.getClass().getName());
    }

    @Override
    public void close() {
        for (final Map.Entry<String, Pool> e : pools.entrySet()) {
            registry.unregister(e.getKey(), e.getValue().handle);
        }
        pools.clear();
    }
}
