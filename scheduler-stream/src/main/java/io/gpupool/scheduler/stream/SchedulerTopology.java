package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.core.EngineConfig;
import java.util.function.Function;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Both stages as one Topology (three sub-topologies: node facts, job routing, placer). Sources
 * read bytes and the processors decode them, so an undecodable record is dead-lettered with its
 * position and processing goes on. Every store is persistent and changelogged.
 */
public final class SchedulerTopology {
    static final String NODE_SOURCE = "node-sources";
    static final String JOB_SOURCE = "job-sources";
    static final String JOURNAL_SOURCE = "journal-source";

    private SchedulerTopology() {
    }

    /** The stores the query layer reads. */
    public static final String HISTORY_STORE = DecisionHistory.STORE;
    public static final String SNAPSHOT_STORE = EngineStore.SNAPSHOTS;

    public static Topology build(final TopicNames t, final Codecs codecs, final SchedulerMetrics metrics,
                                 final PoolEngines engines, final Function<String, EngineConfig> configs,
                                 final int snapshotEvery, final long tickIntervalMs, final TelemetryRules rules) {
        final Topology topo = new Topology();
        final ByteArrayDeserializer bytes = new ByteArrayDeserializer();

        // Stage 1a: node-keyed inputs
        topo.addSource(NODE_SOURCE, bytes, bytes, t.inventory(), t.telemetryGpu(), t.telemetryLink());
        topo.addProcessor("node-facts", () -> new NodeFactsProcessor(t, rules, tickIntervalMs, metrics, codecs),
                NODE_SOURCE);
        topo.addStateStore(store(NodeFactsProcessor.NODE_STORE), "node-facts");

        // Stage 1b: job-keyed inputs
        topo.addSource(JOB_SOURCE, bytes, bytes, t.jobs(), t.jobEvents());
        topo.addProcessor("job-routing", () -> new JobRoutingProcessor(t, metrics, codecs), JOB_SOURCE);
        topo.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(JobRoutingProcessor.JOB_STORE),
                Serdes.String(), Serdes.String()), "job-routing");

        topo.addSink(Journal.SINK, t.journal(), new StringSerializer(), codecs.serializer(), "node-facts", "job-routing");

        // Stage 2: the journal only
        topo.addSource(JOURNAL_SOURCE, bytes, bytes, t.journal());
        topo.addProcessor("placer", () -> new PlacerProcessor(configs, snapshotEvery, engines, metrics, codecs),
                JOURNAL_SOURCE);
        for (final String s : new String[] {EngineStore.SNAPSHOTS, EngineStore.TAIL, PlacerProcessor.JOB_STORE,
                DecisionHistory.STORE}) {
            topo.addStateStore(store(s), "placer");
        }
        topo.addSink(PlacerProcessor.DECISIONS_SINK, t.decisions(), new StringSerializer(), codecs.serializer(), "placer");
        topo.addSink(PlacerProcessor.COMMANDS_SINK, t.nodeCommands(), new StringSerializer(), codecs.serializer(), "placer");
        topo.addSink(PlacerProcessor.SNAPSHOTS_SINK, io.gpupool.scheduler.audit.SnapshotTopic.name(t.journal()),
                new StringSerializer(), new ByteArraySerializer(), "placer");

        topo.addSink(DeadLetters.SINK, t.dlq(), new ByteArraySerializer(), new ByteArraySerializer(),
                "node-facts", "job-routing", "placer");
        return topo;
    }

    private static StoreBuilder<?> store(final String name) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), Serdes.ByteArray());
    }
}
