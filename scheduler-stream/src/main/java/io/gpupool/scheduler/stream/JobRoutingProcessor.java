package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.JobRequestMapper;
import io.gpupool.scheduler.journal.TopicNames;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.ShedSubmit;
import io.gpupool.serde.RecordDecodeException;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Stage 1, job side: job commands and job events, repartitioned by the job id in their payload
 * ({@link JobKeyer}), so every record of one job reaches this task whatever partition its producer
 * chose, go to the journal of their pool. A submit names its pool; a cancel or an event is routed by
 * the job's {@link JobRoute}, which lives as long as the placer keeps a record of the job: late events
 * of its parts are expected after it ends (the engine tells them from current ones by their placement
 * id), and the route goes when the placer's notice ({@link RouteEnds}) says the record expired or the
 * submit was rejected without one. What cannot be routed (no pool, unknown job, a cancel naming a
 * malformed id) is dead-lettered with the reason, under the position the record was first written to.
 * Whether a request is valid is judged in stage 2 from the journal, so that every rejection is a
 * decision that replays. A new job's submit met while the placer's backlog is over its limit
 * ({@link JournalBacklog}) is journaled marked shed, and stores no route: the placer answers it REJECTED
 * OVERLOADED without placing it, and its id stays free for the submit again.
 */
final class JobRoutingProcessor implements Processor<byte[], byte[], Object, Object> {
    static final String JOB_STORE = "sequencer-jobs";

    private final TopicNames topics;
    private final SchedulerMetrics metrics;
    private final Deserializer<JobCommand> commands;
    private final Deserializer<JobEvent> events;
    private final JournalWriter journal;
    private final JournalBacklog backlog;
    private ProcessorContext<Object, Object> context;
    private final CommitCadence cadence;
    /** The key the record being processed was written with (before the repartition by job id). */
    private byte[] writtenKey;
    /** The routes by job id; those read or written lately are read from memory (made anew in init: see CachedStore). */
    private CachedStore<String> poolOfJob;

    JobRoutingProcessor(final TopicNames topics, final SchedulerMetrics metrics, final Codecs codecs,
                        final Function<String, EngineConfig> configs, final JournalBacklog backlog) {
        this.journal = new JournalWriter(configs, metrics);
        this.backlog = backlog;
        this.topics = topics;
        this.metrics = metrics;
        this.cadence = new CommitCadence(metrics.commitTimes(), backlog::behind);
        this.commands = codecs.deserializer(JobCommand.class);
        this.events = codecs.deserializer(JobEvent.class);
    }

    @Override
    public void init(final ProcessorContext<Object, Object> ctx) {
        this.context = ctx;
        cadence.init(ctx);
        journal.init(ctx);
        this.poolOfJob = new CachedStore<>(ctx.<KeyValueStore<String, String>>getStateStore(JOB_STORE));
    }

    @Override
    public void process(final Record<byte[], byte[]> copy) {
        cadence.processed();
        final RecordMetadata where = Origin.of(copy.headers(), context.recordMetadata().orElse(null));
        // journal sources name the job id the record was routed by (its producer's key does not matter);
        // a dead letter keeps the record as its producer wrote it, key included
        final Record<byte[], byte[]> record = copy.withHeaders(Origin.without(copy.headers()));
        writtenKey = Origin.key(copy.headers(), copy.key());
        final String topic = where == null ? "?" : where.topic();
        final RouteEnds.Notice notice = RouteEnds.read(copy);
        if (notice != null) {
            routeEnded(notice);
            return;
        }
        try {
            if (record.value() == null) {
                deadLetter(record, where, "IllegalArgumentException", "a job record without a value (tombstone) means nothing");
            } else if (topics.carriesJobCommands(topic)) {
                command(record, where);
            } else if (topic.equals(topics.jobEvents())) {
                event(record, where);
            } else {
                deadLetter(record, where, "IllegalStateException", "the job sequencer does not read topic " + topic);
            }
        } catch (final RecordDecodeException e) {
            if (e.retriable()) {
                throw e;
            }
            deadLetter(record, where, e.getClass().getName(), DeadLetters.message(e, where));
        }
    }

    private void command(final Record<byte[], byte[]> record, final RecordMetadata where) {
        final JobCommand c = commands.deserialize(where.topic(), record.headers(), record.value());
        final String jobId = c.getJobId();
        final String pool;
        if (c.getCommand() instanceof JobSubmit s) {
            pool = s.getRequest().getPool();
            if (pool == null || pool.isBlank()) {
                deadLetter(record, where, "IllegalArgumentException", "job " + jobId + " names no pool");
                return;
            }
            if (JobRequestMapper.badJobId(jobId) == null) { // the placer rejects it at once, no route needed
                final String stored = poolOfJob.get(jobId);
                // a known job's submit (a retried produce, a duplicate) is answered from its record, never shed
                final ShedSubmit shed = stored == null ? backlog.shedding(pool) : null;
                if (shed != null) {
                    journal.append(Journal.shed(Journal.entry(pool, record.timestamp(), c, record, where,
                            topics.tenantOf(where.topic())), shed));
                    metrics.shed(pool);
                    return;
                }
                final JobRoute route = stored == null ? JobRoute.of(c.getCommandId(), pool)
                        : JobRoute.read(stored).opened(c.getCommandId(), pool);
                final String value = route.write();
                if (!value.equals(stored)) {
                    poolOfJob.put(jobId, value);
                }
            }
        } else {
            final String badId = JobRequestMapper.badJobId(jobId);
            if (badId != null) {
                deadLetter(record, where, "IllegalArgumentException", "cancel names a malformed job id: " + badId);
                return;
            }
            pool = routedPool(jobId);
            if (pool == null) {
                deadLetter(record, where, "IllegalArgumentException", "cancel for job " + jobId
                        + " that was never submitted, or whose record the scheduler no longer keeps");
                return;
            }
        }
        // the topic, not the payload, says whose job it is where tenants have topics of their own
        journal.append(Journal.entry(pool, record.timestamp(), c, record, where, topics.tenantOf(where.topic())));
        metrics.journaled("job");
    }

    private void event(final Record<byte[], byte[]> record, final RecordMetadata where) {
        final JobEvent e = events.deserialize(where.topic(), record.headers(), record.value());
        final String pool = routedPool(e.getJobId());
        if (pool == null) {
            deadLetter(record, where, "IllegalArgumentException", "event " + e.getEventId() + " is about job "
                    + e.getJobId() + " that was never submitted, or whose record the scheduler no longer keeps");
            return;
        }
        journal.append(Journal.entry(pool, record.timestamp(), e, record, where));
        metrics.journaled("job-event");
    }

    private String routedPool(final String jobId) {
        final String stored = poolOfJob.get(jobId);
        return stored == null ? null : JobRoute.read(stored).pool();
    }

    private void routeEnded(final RouteEnds.Notice notice) {
        final String stored = poolOfJob.get(notice.jobId());
        if (stored == null) {
            return; // a notice for a submit this route never recorded (a full route), or repeated after a restore
        }
        final JobRoute left = JobRoute.read(stored).closed(notice.commandId(), notice.expired());
        if (left == null) {
            poolOfJob.delete(notice.jobId());
        } else if (!left.write().equals(stored)) {
            poolOfJob.put(notice.jobId(), left.write());
        }
        metrics.routeEnded(notice.expired() ? "expired" : "rejected");
    }

    private void deadLetter(final Record<byte[], byte[]> record, final RecordMetadata where, final String errorClass,
                            final String message) {
        context.forward(DeadLetters.of(record.withKey(writtenKey), where, errorClass, message), DeadLetters.SINK);
        metrics.deadLettered(where == null ? "?" : where.topic(), errorClass);
    }
}
