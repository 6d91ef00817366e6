package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.serde.RecordDecodeException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Stage 1, job side, first step: keys every job command and job event by the job id in its payload,
 * so that all records of one job reach one task. Which partition a record was written to is the
 * producer's choice (librdkafka's default partitioner hashes with CRC32, Java's with murmur2, a null key
 * goes anywhere), so the task that took a job's submit would otherwise never see its events, and its GPUs
 * would never come back. A record already on the partition its job id hashes to ({@link ByJobId}) goes on
 * to routing in this task; any other crosses the repartition by job id to the task that holds its job.
 * Both carry their {@link Origin}. Every task reads the same partition number of the job topics and of
 * the repartition, so a job is routed by one task either way. A Java client's records (murmur2 of the job
 * id as key) skip the hop: its records, their bytes and a transaction commit of latency. A record whose job
 * id cannot be read keeps its own key (or none) and is dead-lettered with the reason, by {@link JobRoutingProcessor}.
 */
final class JobKeyer implements Processor<byte[], byte[], byte[], byte[]> {
    /** Key of records that have neither a readable job id nor a key of their own. */
    static final byte[] UNKEYED = "#unkeyed".getBytes(StandardCharsets.UTF_8);
    /** The child that takes records already on their job's partition straight to routing. */
    static final String ON_ITS_PARTITION = "job-records-on-their-partition";
    /** The child that sends the other records across the repartition by job id. */
    static final String TO_REPARTITION = "job-records-to-repartition";

    private final TopicNames topics;
    private final Deserializer<JobCommand> commands;
    private final Deserializer<JobEvent> events;
    private final SchedulerMetrics metrics;
    private final int byIdPartitions;
    private ProcessorContext<byte[], byte[]> context;
    private final CommitCadence cadence;

    /**
     * @param byIdPartitions partitions of the repartition by job id
     * @param backlog        the placer's backlog, which the commit cadence reads
     */
    JobKeyer(final TopicNames topics, final Codecs codecs, final SchedulerMetrics metrics, final int byIdPartitions,
             final JournalBacklog backlog) {
        this.topics = topics;
        this.commands = codecs.deserializer(JobCommand.class);
        this.events = codecs.deserializer(JobEvent.class);
        this.metrics = metrics;
        this.cadence = new CommitCadence(metrics.commitTimes(), backlog::behind);
        this.byIdPartitions = byIdPartitions;
    }

    @Override
    public void init(final ProcessorContext<byte[], byte[]> ctx) {
        this.context = ctx;
        cadence.init(ctx);
    }

    @Override
    public void process(final Record<byte[], byte[]> record) {
        cadence.processed();
        final RecordMetadata where = context.recordMetadata().orElseThrow();
        final String jobId = jobId(where.topic(), record);
        final byte[] key = jobId != null ? jobId.getBytes(StandardCharsets.UTF_8)
                : record.key() != null ? record.key() : UNKEYED;
        final Origin origin = new Origin(where.topic(), where.partition(), where.offset());
        final Record<byte[], byte[]> keyed = new Record<>(key, record.value(), record.timestamp(),
                origin.addTo(record.headers(), record.key(), key));
        final boolean onItsPartition = where.partition() == ByJobId.partition(key, byIdPartitions);
        metrics.jobRecordKeyed(onItsPartition);
        context.forward(keyed, onItsPartition ? ON_ITS_PARTITION : TO_REPARTITION);
    }

    private String jobId(final String topic, final Record<byte[], byte[]> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            final String id = topic.equals(topics.jobEvents())
                    ? events.deserialize(topic, record.headers(), record.value()).getJobId()
                    : commands.deserialize(topic, record.headers(), record.value()).getJobId();
            return id == null || id.isEmpty() ? null : id;
        } catch (final RecordDecodeException e) {
            if (e.retriable()) {
                throw e; // registry down: fail the task rather than lose the record's routing
            }
            return null;
        } catch (final RuntimeException e) {
            return null; // undecodable: the routing step dead-letters it with the decoder's reason
        }
    }
}
