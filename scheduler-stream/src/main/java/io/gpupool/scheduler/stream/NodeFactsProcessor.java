package io.gpupool.scheduler.stream;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.Tick;
import io.gpupool.avro.UplinkChange;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.InventoryMapper;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.serde.RecordDecodeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Deserializer;
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
 * Stage 1, node side: inventory and GPU and link telemetry, all keyed by node id (so co-partitioned),
 * become journal facts keyed by pool. Keeps per-node state in a store so only changes are journaled,
 * plus a heartbeat tick per node now and then (the engine marks GPUs stale when a node's journal
 * goes quiet). A stream-time punctuation appends clock ticks for every pool this task knows, which
 * drives stale-telemetry and deadline checks; no wall clock is read.
 */
final class NodeFactsProcessor implements Processor<byte[], byte[], Object, Object> {
    static final String NODE_STORE = "sequencer-nodes";
    private static final Logger LOG = LoggerFactory.getLogger(NodeFactsProcessor.class);
    private static final ThrottledWarnings WARN = new ThrottledWarnings(LOG);

    private final TopicNames topics;
    private final TelemetryRules rules;
    private final long tickIntervalMs;
    private final SchedulerMetrics metrics;
    private final Deserializer<NodeInventory> inventory;
    private final Deserializer<GpuSamples> gpuSamples;
    private final Deserializer<LinkSamples> linkSamples;
    private final GpuTelemetryReducer gpuReducer;
    private final LinkTelemetryReducer linkReducer;
    private final JournalWriter journal;
    private ProcessorContext<Object, Object> context;
    private KeyValueStore<String, byte[]> nodes;
    /** Derived from the node store at init: leaf -> node -> uplink utilisation, and the pools known. */
    private final Map<String, Map<String, Double>> uplinkByLeaf = new HashMap<>();
    private final PoolsOfNodes pools = new PoolsOfNodes();
    /** The per-leaf means of {@link #uplinkByLeaf}, exported; created at init (it needs the task id). */
    private LeafUplinkGauges leafGauges;
    /**
     * The node store in memory (loaded at init; a task that fails is closed and re-initialised, so it
     * never outlives the store's committed state). State is written only when something stored changed: most samples change
     * nothing, and then nothing is written (no store write, no changelog record).
     */
    private final Map<String, NodeFacts> cache = new HashMap<>();

    NodeFactsProcessor(final TopicNames topics, final TelemetryRules rules, final long tickIntervalMs,
                       final SchedulerMetrics metrics, final Codecs codecs, final Function<String, EngineConfig> configs) {
        this.journal = new JournalWriter(configs, metrics);
        this.topics = topics;
        this.rules = rules;
        this.tickIntervalMs = tickIntervalMs;
        this.metrics = metrics;
        this.inventory = codecs.deserializer(NodeInventory.class);
        this.gpuSamples = codecs.deserializer(GpuSamples.class);
        this.linkSamples = codecs.deserializer(LinkSamples.class);
        this.gpuReducer = new GpuTelemetryReducer(rules);
        this.linkReducer = new LinkTelemetryReducer(rules);
    }

    @Override
    public void init(final ProcessorContext<Object, Object> ctx) {
        this.context = ctx;
        journal.init(ctx);
        this.nodes = ctx.getStateStore(NODE_STORE);
        this.leafGauges = new LeafUplinkGauges(metrics.registry(), ctx.taskId().toString());
        try (KeyValueIterator<String, byte[]> it = nodes.all()) {
            while (it.hasNext()) {
                final KeyValue<String, byte[]> kv = it.next();
                final NodeFacts f = NodeFacts.fromBytes(kv.value);
                cache.put(kv.key, f);
                pools.nodeAdded(f.pool);
                trackUplink(kv.key, f);
            }
        }
        ctx.schedule(Duration.ofMillis(tickIntervalMs), PunctuationType.STREAM_TIME, this::tick);
    }

    private void tick(final long streamTimeMs) {
        for (final String pool : pools.pools()) {
            journal.append(Journal.clockTick(pool, streamTimeMs));
            metrics.journaled("tick");
        }
    }

    @Override
    public void process(final Record<byte[], byte[]> record) {
        final RecordMetadata where = context.recordMetadata().orElse(null);
        final String topic = where == null ? "?" : where.topic();
        if (record.key() == null) {
            deadLetter(record, where, "IllegalArgumentException", "record has no key (node id expected)");
            return;
        }
        final String nodeId = new String(record.key(), StandardCharsets.UTF_8);
        try {
            if (topic.equals(topics.inventory())) {
                inventory(nodeId, record, where);
            } else if (topic.equals(topics.telemetryGpu())) {
                gpu(nodeId, record, where);
            } else if (topic.equals(topics.telemetryLink())) {
                link(nodeId, record, where);
            } else {
                deadLetter(record, where, "IllegalStateException", "the node sequencer does not read topic " + topic);
            }
        } catch (final RecordDecodeException e) {
            if (e.retriable()) {
                throw e; // registry down: fail the task rather than dead-letter good bytes
            }
            deadLetter(record, where, e);
        } catch (final IllegalArgumentException e) {
            deadLetter(record, where, e);
        }
    }

    private void inventory(final String nodeId, final Record<byte[], byte[]> record, final RecordMetadata where) {
        final NodeFacts before = cache.get(nodeId);
        if (record.value() == null) {
            if (before == null) {
                deadLetter(record, where, "IllegalArgumentException", "inventory tombstone for node " + nodeId
                        + ", which the scheduler does not know: nothing to remove");
                return;
            }
            // a tombstone on the compacted inventory topic is how an operator removes a node: a deliberate fact
            LOG.warn("node {} removed from pool {} by an inventory tombstone ({} {}@{}); its jobs are evicted",
                    nodeId, before.pool, topicOf(where), where == null ? -1 : where.partition(),
                    where == null ? -1 : where.offset());
            metrics.nodeRemoved(before.pool);
            journal(before.pool, record, where, InventoryChange.newBuilder().setNodeId(nodeId).setRemoved(true)
                    .setInventory(null).build(), "inventory");
            nodes.delete(nodeId);
            cache.remove(nodeId);
            pools.nodeRemoved(before.pool);
            untrackUplink(nodeId, before);
            return;
        }
        final NodeInventory inv = inventory.deserialize(topicOf(where), record.headers(), record.value());
        if (!nodeId.equals(inv.getNodeId())) {
            throw new IllegalArgumentException("key " + nodeId + " differs from the record's nodeId " + inv.getNodeId());
        }
        InventoryMapper.toNodeSpec(inv); // the engine must be able to take it; else dead-letter, do not journal
        if (before != null && !before.pool.equals(inv.getPool())) {
            journal(before.pool, record, where, InventoryChange.newBuilder().setNodeId(nodeId).setRemoved(true)
                    .setInventory(null).build(), "inventory");
        }
        if (before != null && (!before.pool.equals(inv.getPool()) || !Objects.equals(before.leaf, inv.getLeaf()))) {
            untrackUplink(nodeId, before); // before it is updated below: a re-cabled node leaves its old leaf's mean
        }
        final NodeFacts f = before != null && before.pool.equals(inv.getPool()) ? before : new NodeFacts();
        final List<String> uuids = new ArrayList<>();
        for (final GpuInfo g : inv.getGpus()) {
            uuids.add(g.getUuid());
        }
        f.pool = inv.getPool();
        f.leaf = inv.getLeaf();
        f.spine = inv.getSpine();
        // a re-published inventory means the node (re)started: health is judged afresh, and the uplink
        // figure is journaled again with the next sample (an engine that replaced the node forgot it)
        f.resetGpus(uuids);
        f.journaledUplinkPct = -1;
        if (before == null || !before.pool.equals(f.pool)) {
            if (before != null) {
                pools.nodeRemoved(before.pool);
            }
            pools.nodeAdded(f.pool);
        }
        journal(f.pool, record, where, InventoryChange.newBuilder().setNodeId(nodeId).setRemoved(false)
                .setInventory(inv).build(), "inventory");
        f.lastJournalMs = record.timestamp();
        save(nodeId, f);
        trackUplink(nodeId, f);
    }

    private void gpu(final String nodeId, final Record<byte[], byte[]> record, final RecordMetadata where) {
        if (record.value() == null) {
            deadLetter(record, where, "IllegalArgumentException", "a telemetry record without a value (tombstone) means nothing");
            return;
        }
        final GpuSamples samples = gpuSamples.deserialize(topicOf(where), record.headers(), record.value());
        final NodeFacts f = known(nodeId, samples.getNodeId(), where);
        if (f == null) {
            return;
        }
        final List<Object> facts;
        try {
            facts = gpuReducer.reduce(f, samples);
        } catch (final InvalidTelemetryException e) {
            dropped(where, "out_of_range", e.getMessage());
            return;
        }
        for (final Object fact : facts) {
            journal(f.pool, record, where, fact, "gpu");
        }
        aliveAndSave(nodeId, f, record, where, !facts.isEmpty());
    }

    private void link(final String nodeId, final Record<byte[], byte[]> record, final RecordMetadata where) {
        if (record.value() == null) {
            deadLetter(record, where, "IllegalArgumentException", "a telemetry record without a value (tombstone) means nothing");
            return;
        }
        final LinkSamples samples = linkSamples.deserialize(topicOf(where), record.headers(), record.value());
        final NodeFacts f = known(nodeId, samples.getNodeId(), where);
        if (f == null) {
            return;
        }
        final List<?> facts;
        try {
            facts = linkReducer.reduce(f, samples, record.timestamp());
        } catch (final InvalidTelemetryException e) {
            dropped(where, "out_of_range", e.getMessage());
            return;
        }
        for (final Object fact : facts) {
            journal(f.pool, record, where, fact, "link");
        }
        final boolean uplink = uplink(nodeId, f, record, where);
        aliveAndSave(nodeId, f, record, where, !facts.isEmpty() || uplink);
    }

    /** The node's state, or null (counted) when the sequencer has no inventory for it. */
    private NodeFacts known(final String key, final String nodeId, final RecordMetadata where) {
        if (!key.equals(nodeId)) {
            dropped(where, "key_mismatch", "key " + key + " differs from the record's node id " + nodeId);
            return null;
        }
        final NodeFacts f = cache.get(key);
        if (f == null) {
            // usual for a node's first sample, which can be read before its inventory: the next one counts
            dropped(where, "unknown_node", "no inventory for node " + key + " yet");
        }
        return f;
    }

    /** A sample that cannot be used: counted, and named in the log (throttled) with its position. */
    private void dropped(final RecordMetadata where, final String reason, final String detail) {
        metrics.telemetryDropped(topicOf(where), reason);
        WARN.warn(reason, "telemetry dropped ({}): {} {}@{}: {}", reason, topicOf(where),
                where == null ? -1 : where.partition(), where == null ? -1 : where.offset(), detail);
    }

    /** Records the telemetry and journals a heartbeat when the node's journal has been quiet too long. */
    private void aliveAndSave(final String nodeId, final NodeFacts f, final Record<byte[], byte[]> record,
                              final RecordMetadata where, final boolean journaled) {
        final long ts = record.timestamp();
        if (journaled) {
            f.lastJournalMs = ts;
            f.dirty = true;
        } else if (f.lastJournalMs < 0 || ts - f.lastJournalMs >= rules.heartbeatIntervalMs()) {
            journal(f.pool, record, where, Tick.newBuilder().setReason(JournalApplier.HEARTBEAT)
                    .setNodeId(nodeId).build(), "heartbeat");
            f.lastJournalMs = ts;
            f.dirty = true;
        }
        save(nodeId, f);
    }

    /** Writes the node's state when something stored in it changed (most samples change nothing). */
    private void save(final String nodeId, final NodeFacts f) {
        if (f.dirty) {
            nodes.put(nodeId, f.toBytes());
            f.dirty = false;
        }
        cache.put(nodeId, f);
    }

    /**
     * Journals the node's uplink figure when it became known or unknown, or moved by
     * {@link TelemetryRules#UPLINK_STEP_PCT} from the figure last journaled. The placer averages a
     * leaf's nodes into its congestion: this task sees only the nodes of its own partitions, so a leaf
     * judged here would be judged on part of its nodes, differently by every task.
     */
    private boolean uplink(final String nodeId, final NodeFacts f, final Record<byte[], byte[]> record,
                           final RecordMetadata where) {
        trackUplink(nodeId, f);
        if (!TelemetryRules.uplinkMoved(f.journaledUplinkPct, f.uplinkPct)) {
            return false;
        }
        f.journaledUplinkPct = f.uplinkPct;
        f.dirty = true;
        journal(f.pool, record, where, UplinkChange.newBuilder().setNodeId(nodeId)
                .setUplinkUtilisationPct(f.uplinkPct < 0 ? null : f.uplinkPct)
                .setEvidence(f.uplinkPct < 0 ? "no rated fabric port sampled"
                        : "busiest fabric port at " + Math.round(f.uplinkPct) + "% of its link rate")
                .build(), "uplink");
        return true;
    }

    /** Records the node's uplink figure under its leaf and, when it changed, exports the leaf's new mean. */
    private void trackUplink(final String nodeId, final NodeFacts f) {
        if (f.leaf == null) {
            return;
        }
        final Double before = uplinkByLeaf.computeIfAbsent(f.leaf, l -> new HashMap<>()).put(nodeId, f.uplinkPct);
        if (before == null || before != f.uplinkPct) {
            exportUplink(f.pool, f.leaf);
        }
    }

    private void untrackUplink(final String nodeId, final NodeFacts f) {
        if (f.leaf != null) {
            final Map<String, Double> m = uplinkByLeaf.get(f.leaf);
            if (m != null) {
                m.remove(nodeId);
            }
            exportUplink(f.pool, f.leaf);
        }
    }

    /** The leaf's mean over this task's nodes, set on its gauge (removed while there is none). */
    private void exportUplink(final String pool, final String leaf) {
        double sum = 0;
        int n = 0;
        for (final double pct : uplinkByLeaf.getOrDefault(leaf, Map.of()).values()) {
            if (pct >= 0) {
                sum += pct;
                n++;
            }
        }
        if (n == 0) {
            leafGauges.remove(pool, leaf);
        } else {
            leafGauges.set(pool, leaf, sum / n, n);
        }
    }

    @Override
    public void close() {
        if (leafGauges != null) {
            leafGauges.close();
        }
    }

    private void journal(final String pool, final Record<byte[], byte[]> record, final RecordMetadata where,
                         final Object payload, final String kind) {
        journal.append(Journal.entry(pool, record.timestamp(), payload, record, where));
        metrics.journaled(kind);
    }

    private void deadLetter(final Record<byte[], byte[]> record, final RecordMetadata where, final Throwable e) {
        context.forward(DeadLetters.of(record, where, e), DeadLetters.SINK);
        metrics.deadLettered(topicOf(where), e.getClass().getName());
    }

    private void deadLetter(final Record<byte[], byte[]> record, final RecordMetadata where, final String errorClass,
                            final String message) {
        context.forward(DeadLetters.of(record, where, errorClass, message), DeadLetters.SINK);
        metrics.deadLettered(topicOf(where), errorClass);
    }

    private static String topicOf(final RecordMetadata where) {
        return where == null ? "?" : where.topic();
    }
}
