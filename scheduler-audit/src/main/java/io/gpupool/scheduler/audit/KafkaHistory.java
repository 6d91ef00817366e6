package io.gpupool.scheduler.audit;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.audit.reality.ReportedEvent;
import io.gpupool.scheduler.audit.reality.SinkHistory;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.SnapshotTopic;
import io.gpupool.scheduler.journal.JobBookTopic;
import io.gpupool.scheduler.journal.SnapshotTopicRecords;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.RecordDecodeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The recorded history on a Kafka cluster: journal, decisions, engine snapshots, and what the sinks
 * were told and reported (node commands, job events), read up to the end offsets seen when reading
 * starts (committed records only: the scheduler writes exactly once, so aborted attempts must not count). No consumer group: nothing is committed, any number of auditors
 * may read at once.
 */
public final class KafkaHistory implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(500);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Deserializer<JournalEntry> journal;
    private final Deserializer<PlacementDecision> decisions;
    private final Deserializer<NodeCommand> commands;
    private final Deserializer<JobEvent> events;
    private CommandsTopic commandsTopic;
    private final TopicNames topics;

    /** @param clients bootstrap servers and any --command-config settings */
    private final Properties clients;

    public KafkaHistory(final Properties clients, final String registryUrl, final TopicNames topics) {
        this.clients = new Properties();
        this.clients.putAll(clients);
        final Properties p = new Properties();
        p.putAll(clients);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // a history is read partition by partition up to its end: a fetch that finds nothing more to return
        // (the last transaction markers, aborted batches) waited the default 500 ms each time, ~5 s an audit
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
        this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        final Map<String, Object> serde = AvroSerdeConfig.forClient(clients, registryUrl);
        final Codecs codecs = new Codecs(AvroSerdeConfig.registry(serde), false);
        this.journal = codecs.deserializer(JournalEntry.class);
        this.decisions = codecs.deserializer(PlacementDecision.class);
        this.commands = codecs.deserializer(NodeCommand.class);
        this.events = codecs.deserializer(JobEvent.class);
        this.topics = topics;
    }

    /** Every recorded decision (of one pool, or all when {@code pool} is null). */
    public List<PlacementDecision> decisions(final String pool) {
        final List<PlacementDecision> out = new ArrayList<>();
        for (final TopicPartition tp : partitions(topics.decisions())) {
            read(tp, 0, r -> {
                final PlacementDecision d = decisions.deserialize(tp.topic(), r.headers(), r.value());
                if (d != null && (pool == null || pool.equals(d.getPool().toString()))) {
                    out.add(d);
                }
            });
        }
        return out;
    }

    /**
     * The recorded node commands (of one pool, or all when {@code pool} is null), with the journal
     * offsets from which they are complete. The node-commands topic has a retention period while the
     * journal is kept: when a partition of it has lost its oldest records, the commands of a journal
     * partition are complete only from the first cause offset that partition still holds for it (and
     * not at all when it holds none of that journal partition's commands any more).
     */
    public RecordedCommands nodeCommands(final String pool) {
        if (!consumer.listTopics().containsKey(topics.nodeCommands())) {
            return RecordedCommands.notAudited("topic " + topics.nodeCommands() + " does not exist on this cluster"
                    + " (renamed? --topic-name node-commands=NAME)");
        }
        final CommandsTopic read = commandsTopic();
        final Map<Integer, Long> completeFrom = new HashMap<>();
        for (final Map<Integer, Long> firstCause : read.firstCauseOfTruncated()) {
            for (final TopicPartition journal : partitions(topics.journal())) {
                final int jp = journal.partition();
                completeFrom.merge(jp, firstCause.getOrDefault(jp, Long.MAX_VALUE), Math::max);
            }
        }
        final List<NodeCommand> out = pool == null ? read.all()
                : read.all().stream().filter(c -> pool.equals(c.getPool())).toList();
        return RecordedCommands.of(out, completeFrom);
    }

    /**
     * Why the sinks' reports cannot be checked (a topic the check reads is missing), or empty when
     * they can: the reality check needs both the node commands and the job events.
     */
    public Optional<String> whyNoSinkHistory() {
        final Set<String> existing = consumer.listTopics().keySet();
        for (final String[] t : new String[][] {{topics.nodeCommands(), "node-commands"}, {topics.jobEvents(), "job-events"}}) {
            if (!existing.contains(t[0])) {
                return Optional.of("topic " + t[0] + " does not exist on this cluster (renamed? --topic-name " + t[1]
                        + "=NAME)");
            }
        }
        return Optional.empty();
    }

    /**
     * What the sinks were told and what they reported, of all pools (an event is placed in a pool by
     * the command it names): every node command and every job event with its position, and from which
     * moment each topic still holds everything (its retention deletes the oldest records: a truncated
     * partition is complete from its oldest record kept; the latest such moment over the partitions).
     */
    public SinkHistory sinkHistory() {
        final CommandsTopic commands = commandsTopic();
        final List<ReportedEvent> out = new ArrayList<>();
        long eventsFrom = Long.MIN_VALUE;
        final List<TopicPartition> parts = partitions(topics.jobEvents());
        final Map<TopicPartition, Long> starts = consumer.beginningOffsets(parts);
        for (final TopicPartition tp : parts) {
            final long[] oldest = {Long.MAX_VALUE};
            read(tp, 0, r -> {
                final JobEvent e = decoded(() -> events.deserialize(tp.topic(), r.headers(), r.value()));
                if (e != null) {
                    out.add(new ReportedEvent(r.partition(), r.offset(), e));
                    oldest[0] = Math.min(oldest[0], e.getOccurredAt().toEpochMilli());
                }
            });
            if (starts.get(tp) > 0 && oldest[0] != Long.MAX_VALUE) {
                eventsFrom = Math.max(eventsFrom, oldest[0]);
            }
        }
        return new SinkHistory(commands.all(), out, commands.completeFromMs(), eventsFrom);
    }

    /**
     * The node-commands topic as read once, for the command comparison and the reality check alike:
     * every command in topic order; for each partition retention truncated, the first cause offset it
     * still holds per journal partition; and the latest oldest issue time among those partitions.
     */
    private record CommandsTopic(List<NodeCommand> all, List<Map<Integer, Long>> firstCauseOfTruncated,
                                 long completeFromMs) {
    }

    /**
     * Records of the sink topics that could not be decoded (written by others: stage 1 dead-letters such
     * job events; an audit skips them and says how many).
     */
    public long undecodableSinkRecords() {
        return undecodable;
    }

    private long undecodable;

    private <T> T decoded(final Supplier<T> decode) {
        try {
            return decode.get();
        } catch (final RuntimeException e) {
            undecodable++;
            return null;
        }
    }

    /**
     * Journal records that could not be decoded (only stage 1 should write the journal, but anyone
     * with access can): the placer dead-letters them and applies nothing, so an audit skips them too.
     */
    public long undecodableJournalRecords() {
        return undecodableJournal;
    }

    private long undecodableJournal;

    private JournalEntry journalEntry(final ConsumerRecord<byte[], byte[]> r) {
        try {
            return journal.deserialize(r.topic(), r.headers(), r.value());
        } catch (final RecordDecodeException e) {
            if (e.retriable()) {
                throw e; // the registry is down: the audit cannot go on without it
            }
            undecodableJournal++;
            return null;
        }
    }

    private CommandsTopic commandsTopic() {
        if (commandsTopic != null) {
            return commandsTopic;
        }
        final List<NodeCommand> all = new ArrayList<>();
        final List<Map<Integer, Long>> firstCauseOfTruncated = new ArrayList<>();
        long completeFromMs = Long.MIN_VALUE;
        final List<TopicPartition> parts = partitions(topics.nodeCommands());
        final Map<TopicPartition, Long> starts = consumer.beginningOffsets(parts);
        for (final TopicPartition tp : parts) {
            final Map<Integer, Long> firstCause = new HashMap<>();
            final long[] oldest = {Long.MAX_VALUE};
            read(tp, 0, r -> {
                final NodeCommand c = decoded(() -> commands.deserialize(tp.topic(), r.headers(), r.value()));
                if (c == null) {
                    return;
                }
                firstCause.merge(c.getCause().getPartition(), c.getCause().getOffset(), Math::min);
                oldest[0] = Math.min(oldest[0], c.getCause().getTimestamp().toEpochMilli());
                all.add(c);
            });
            if (starts.get(tp) > 0) {
                firstCauseOfTruncated.add(firstCause);
                if (oldest[0] != Long.MAX_VALUE) {
                    completeFromMs = Math.max(completeFromMs, oldest[0]);
                }
            }
        }
        commandsTopic = new CommandsTopic(List.copyOf(all), firstCauseOfTruncated, completeFromMs);
        return commandsTopic;
    }

    /**
     * The engine snapshots still on the compacted topic, per pool, oldest first: chunks put back
     * together, each with the job book of its partition from the book records on the same topic, and
     * whole records of schedulers from before the chunks (format 1) as they are.
     */
    public Map<String, List<EngineSnapshot>> snapshots(final String pool) {
        final String topic = SnapshotTopic.name(topics.journal());
        if (!consumer.listTopics().containsKey(topic)) {
            return new HashMap<>();
        }
        final SnapshotTopicRecords records = new SnapshotTopicRecords();
        for (final TopicPartition tp : partitions(topic)) {
            read(tp, 0, r -> {
                if (r.value() == null) {
                    final Header at = r.headers().lastHeader(JobBookTopic.EXPIRED_AT);
                    records.tombstone(new String(r.key(), StandardCharsets.UTF_8), at == null ? null : at.value());
                } else {
                    records.add(r.value());
                }
            });
        }
        return records.snapshots(pool);
    }

    /**
     * The journal, partition after partition (a pool lives on one partition, so each pool's entries
     * come in order), read lazily: an audit of a long history does not hold it in memory.
     *
     * @param start per partition the first offset to read (absent: the beginning)
     */
    public Iterator<JournalRecord> journal(final String pool, final Map<Integer, Long> start) {
        return journal(pool, start, Map.of());
    }

    /**
     * The journal up to (not including) {@code upTo} per partition (absent: its end). An audit stops at
     * the placer's position ({@link #placerPositions}): entries past it were journaled by stage 1 but not
     * yet decided on, so there is nothing recorded to compare them with.
     */
    public Iterator<JournalRecord> journal(final String pool, final Map<Integer, Long> start,
                                           final Map<Integer, Long> upTo) {
        final List<TopicPartition> parts = partitions(topics.journal());
        final Map<TopicPartition, Long> ends = new HashMap<>(consumer.endOffsets(parts));
        ends.replaceAll((tp, end) -> Math.min(end, upTo.getOrDefault(tp.partition(), end)));
        return new Iterator<>() {
            private final ArrayDeque<JournalRecord> buffer = new ArrayDeque<>();
            private int next;
            private TopicPartition current;
            private long end;

            @Override
            public boolean hasNext() {
                while (buffer.isEmpty()) {
                    if (current == null || consumer.position(current) >= end) {
                        if (next >= parts.size()) {
                            return false;
                        }
                        current = parts.get(next++);
                        end = ends.get(current);
                        consumer.assign(List.of(current));
                        consumer.seek(current, Math.max(start.getOrDefault(current.partition(), 0L),
                                consumer.beginningOffsets(List.of(current)).get(current)));
                        continue;
                    }
                    for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                        if (r.offset() >= end) {
                            continue;
                        }
                        final JournalEntry e = journalEntry(r);
                        if (e != null && (pool == null || pool.equals(e.getPool().toString()))) {
                            buffer.add(new JournalRecord(r.partition(), r.offset(), e));
                        }
                    }
                }
                return true;
            }

            @Override
            public JournalRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return buffer.poll();
            }
        };
    }

    /**
     * Per journal partition, the offset up to which the scheduler application {@code applicationId} has
     * decided (its committed position: with exactly-once, everything before it has its decisions and
     * commands on their topics); empty when that application never committed one.
     */
    public Map<Integer, Long> placerPositions(final String applicationId) {
        final Properties p = new Properties();
        p.putAll(clients);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, applicationId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        final Map<Integer, Long> out = new TreeMap<>();
        // committed() only fetches the group's offsets: it does not join the group or disturb its members
        try (KafkaConsumer<byte[], byte[]> group = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            final Map<TopicPartition, OffsetAndMetadata> committed =
                    group.committed(new HashSet<>(partitions(topics.journal())), Duration.ofSeconds(30));
            committed.forEach((tp, o) -> {
                if (o != null) {
                    out.put(tp.partition(), o.offset());
                }
            });
        }
        return out;
    }

    public TopicNames topicNames() {
        return topics;
    }

    /** Records on the dead-letter topic now (what every consumer could not use, with the reason); -1 without it. */
    public long deadLetters() {
        final List<PartitionInfo> infos = consumer.partitionsFor(topics.dlq(), Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            return -1;
        }
        // counted by reading (read_committed): offsets also hold transaction markers and aborted records
        final long[] n = {0};
        for (final PartitionInfo i : infos) {
            read(new TopicPartition(topics.dlq(), i.partition()), 0, r -> n[0]++);
        }
        return n[0];
    }

    /** Journal entries per partition from {@code upTo} to the end: journaled, not yet decided on. */
    public long undecidedEntries(final Map<Integer, Long> upTo) {
        final long[] n = {0};
        for (final TopicPartition tp : partitions(topics.journal())) {
            if (upTo.containsKey(tp.partition())) {
                read(tp, upTo.get(tp.partition()), r -> n[0]++);
            }
        }
        return n[0];
    }

    private List<TopicPartition> partitions(final String topic) {
        final List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist on this cluster");
        }
        return infos.stream().map(i -> new TopicPartition(topic, i.partition()))
                .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
    }

    private void read(final TopicPartition tp, final long from, final Consumer<ConsumerRecord<byte[], byte[]>> each) {
        final long end = consumer.endOffsets(List.of(tp)).get(tp);
        consumer.assign(List.of(tp));
        consumer.seek(tp, Math.max(from, consumer.beginningOffsets(List.of(tp)).get(tp)));
        while (consumer.position(tp) < end) {
            for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                if (r.offset() < end) {
                    each.accept(r);
                }
            }
        }
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}
