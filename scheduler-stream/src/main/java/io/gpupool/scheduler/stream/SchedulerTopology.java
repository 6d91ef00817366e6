package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.SnapshotTopic;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.topics.TenantJobTopics;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.AutoOffsetReset;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Both stages as one Topology and one sub-topology: job keying (JobKeyer, with a repartition by job id for
 * records not on their job's partition), node facts, job routing and the placer (Kafka Streams joins them
 * into one, since they share the journal and dead-letter sinks and routing takes records both straight from
 * the keyer and from the repartition; each still has its own processors and stores). Sources read bytes and the processors decode them, so an
 * undecodable record is dead-lettered with its position and processing goes on. Every store is
 * persistent and changelogged. Stage 1's sources take each record's time through
 * {@link ClampedTimestamps}, so no producer's clock can move the pool's.
 */
public final class SchedulerTopology {
    static final String NODE_SOURCE = "node-sources";
    static final String JOB_SOURCE = "job-sources";
    static final String TENANT_JOB_SOURCE = "tenant-job-sources";
    static final String JOURNAL_SOURCE = "journal-source";
    static final String JOB_KEYER = "job-keyer";
    static final String JOB_ROUTING = "job-routing";
    /** Name of the internal topic that brings every record of one job to one task ({@code <app id>-jobs-by-id-repartition}). */
    static final String JOBS_BY_ID = "jobs-by-id";
    /** How far ahead of this scheduler's clock an input record's time may be (see {@link ClampedTimestamps}). */
    public static final long DEFAULT_MAX_CLOCK_AHEAD_MS = 5_000;

    private SchedulerTopology() {
    }

    /** The stores the query layer reads. */
    public static final String HISTORY_STORE = DecisionHistory.STORE;
    public static final String SNAPSHOT_STORE = EngineStore.SNAPSHOTS;

    /**
     * @param applicationId the Kafka Streams application id: the placer's route notices go onto its repartition topic
     * @param jobSources whether tenants' job topics are read besides the shared one, and the repartition's partitions
     * @param journalReader how a restoring placer re-reads the journal entries after its pools' snapshots
     * @param backlog the placer's backlog as last measured, and the limit over which stage 1 sheds new submits; the
     *                commit cadences read whether the placer is behind
     */
    public static Topology build(final String applicationId, final TopicNames t, final Codecs codecs,
                                 final SchedulerMetrics metrics,
                                 final PoolEngines engines, final Function<String, EngineConfig> configs,
                                 final int snapshotEvery, final long tickIntervalMs, final TelemetryRules rules,
                                 final long maxClockAheadMs, final JobSources jobSources, final JournalReader journalReader,
                                 final JournalBacklog backlog) {
        final ByteArrayDeserializer bytes = new ByteArrayDeserializer();
        final ClampedTimestamps clock = new ClampedTimestamps(maxClockAheadMs, metrics);

        // Stage 1b: job commands and events, keyed by the job id in their payload; those not on the partition of
        // their job id cross a repartition on it (the DSL, because only it creates and manages the internal
        // topic); then all are routed to their pool. The keyer names the child each record goes to.
        final StreamsBuilder dsl = new StreamsBuilder();
        dsl.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(JobRoutingProcessor.JOB_STORE),
                Serdes.String(), Serdes.String()));
        KStream<byte[], byte[]> jobRecords = dsl.stream(List.of(t.jobs(), t.jobEvents()), jobSource(clock, JOB_SOURCE));
        if (jobSources.tenantTopics()) {
            jobRecords = jobRecords.merge(dsl.stream(TenantJobTopics.pattern(t.jobs()), jobSource(clock, TENANT_JOB_SOURCE)),
                    Named.as(TENANT_JOB_SOURCE + "-merge"));
        }
        final KStream<byte[], byte[]> keyed = jobRecords.process(
                () -> new JobKeyer(t, codecs, metrics, jobSources.byIdPartitions(), backlog), Named.as(JOB_KEYER));
        // pass-all filters: they only give the keyer's two children the names it forwards to
        final KStream<byte[], byte[]> onTheirPartition = keyed.filter((k, v) -> true, Named.as(JobKeyer.ON_ITS_PARTITION));
        final KStream<byte[], byte[]> acrossTheHop = keyed.filter((k, v) -> true, Named.as(JobKeyer.TO_REPARTITION))
                .repartition(Repartitioned.with(Serdes.ByteArray(), Serdes.ByteArray()).withName(JOBS_BY_ID)
                        .withNumberOfPartitions(jobSources.byIdPartitions()).withStreamPartitioner(ByJobId.ofBytes()));
        onTheirPartition.merge(acrossTheHop, Named.as(JOBS_BY_ID + "-merge"))
                .process(() -> new JobRoutingProcessor(t, metrics, codecs, configs, backlog), Named.as(JOB_ROUTING),
                        JobRoutingProcessor.JOB_STORE);
        final Topology topo = dsl.build();

        // Stage 1a: node-keyed inputs
        topo.addSource((AutoOffsetReset) null, NODE_SOURCE, clock, bytes, bytes, t.inventory(),
                t.telemetryGpu(), t.telemetryLink()); // no reset of its own: the application's default
        topo.addProcessor("node-facts", () -> new NodeFactsProcessor(t, rules, tickIntervalMs, metrics, codecs, configs),
                NODE_SOURCE);
        topo.addStateStore(store(NodeFactsProcessor.NODE_STORE), "node-facts");

        topo.addSink(Journal.SINK, t.journal(), new StringSerializer(), codecs.serializer(), "node-facts", JOB_ROUTING);

        // Stage 2: the journal only
        topo.addSource(JOURNAL_SOURCE, bytes, bytes, t.journal());
        topo.addProcessor("placer",
                () -> new PlacerProcessor(configs, snapshotEvery, engines, metrics, codecs, t.decisions(), journalReader, backlog),
                JOURNAL_SOURCE);
        // the tail store is written only for pools a scheduler of before stored with it (EngineStore)
        for (final String s : new String[] {EngineStore.SNAPSHOTS, EngineStore.TAIL, PlacerProcessor.JOB_STORE,
                DecisionHistory.STORE}) {
            topo.addStateStore(store(s), "placer");
        }
        // the placer encodes decisions itself: the same bytes are the job's history (PlacerProcessor.emit)
        topo.addSink(PlacerProcessor.DECISIONS_SINK, t.decisions(), new StringSerializer(), new ByteArraySerializer(), "placer");
        topo.addSink(PlacerProcessor.COMMANDS_SINK, t.nodeCommands(), new StringSerializer(), codecs.serializer(), "placer");
        topo.addSink(PlacerProcessor.SNAPSHOTS_SINK, SnapshotTopic.name(t.journal()),
                new StringSerializer(), new ByteArraySerializer(), "placer");
        topo.addSink(RouteEnds.SINK, RouteEnds.topic(applicationId), new StringSerializer(), new StringSerializer(),
                ByJobId.ofJobIds(), "placer");

        topo.addSink(DeadLetters.SINK, t.dlq(), new ByteArraySerializer(), new ByteArraySerializer(),
                "node-facts", JOB_ROUTING, "placer");
        return topo;
    }

    /** The internal topic of the repartition by job id, {@code <application id>-jobs-by-id-repartition}. */
    public static String jobsByIdTopic(final String applicationId) {
        return RouteEnds.topic(applicationId);
    }

    private static Consumed<byte[], byte[]> jobSource(final ClampedTimestamps clock, final String name) {
        return Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withTimestampExtractor(clock).withName(name);
    }

    private static StoreBuilder<?> store(final String name) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), Serdes.ByteArray());
    }
}
