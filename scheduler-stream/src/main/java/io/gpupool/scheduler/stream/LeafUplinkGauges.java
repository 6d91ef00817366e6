package io.gpupool.scheduler.stream;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leaf uplink figures of one stage-1 task, as gauges: {@code gpupool_leaf_uplink_utilization_ratio}
 * and {@code gpupool_leaf_uplink_nodes}, by pool, leaf and task. Stage 1 reads node telemetry by
 * node id, so each task sees only the nodes of its own partitions and averages a leaf over those;
 * the task label keeps these partial figures apart, and the node count lets a query weight them
 * into the mean over the whole leaf. Written by the task's stream thread, read by scrapes.
 */
final class LeafUplinkGauges implements AutoCloseable {
    static final String UTILIZATION = "gpupool.leaf.uplink.utilization.ratio";
    static final String NODES = "gpupool.leaf.uplink.nodes";

    private final MeterRegistry registry;
    private final String task;
    /** By pool and leaf; touched only by the task's thread (the values inside are read by scrapes). */
    private final Map<List<String>, Figures> leaves = new HashMap<>();

    /** What a scrape reads: volatile, because the stream thread writes it. */
    private static final class Figures {
        volatile double ratio;
        volatile double nodes;
        final List<Gauge> gauges = new ArrayList<>();
    }

    LeafUplinkGauges(final MeterRegistry registry, final String task) {
        this.registry = registry;
        this.task = task;
    }

    /**
     * @param meanPct the leaf's mean uplink utilisation in percent, over {@code nodes} nodes
     */
    void set(final String pool, final String leaf, final double meanPct, final int nodes) {
        final Figures f = leaves.computeIfAbsent(List.of(pool, leaf), k -> register(pool, leaf));
        f.ratio = meanPct / 100;
        f.nodes = nodes;
    }

    /** The leaf has no node with a known utilisation left in this task: its series disappear. */
    void remove(final String pool, final String leaf) {
        final Figures f = leaves.remove(List.of(pool, leaf));
        if (f != null) {
            f.gauges.forEach(registry::remove);
        }
    }

    private Figures register(final String pool, final String leaf) {
        final Tags tags = Tags.of("pool", pool, "leaf", leaf, "task", task);
        // A task that died without close() can have left these meters behind, bound to figures
        // nobody updates any more; registering again would return them unchanged.
        registry.find(UTILIZATION).tags(tags).meters().forEach(registry::remove);
        registry.find(NODES).tags(tags).meters().forEach(registry::remove);
        final Figures f = new Figures();
        f.gauges.add(Gauge.builder(UTILIZATION, f, x -> x.ratio)
                .description("Estimated utilisation (0-1) of a leaf switch's uplinks: the mean over the leaf's nodes of "
                        + "each node's busiest fabric port, transmit rate / link rate, in whole percent (the placer judges "
                        + "congestion on the same figures as journaled, within 5 points). Per stage-1 task: a task averages only the nodes of its own input partitions "
                        + "(weight by gpupool_leaf_uplink_nodes for the whole leaf). Switch-side uplink counters are not read.")
                .tags(tags).register(registry));
        f.gauges.add(Gauge.builder(NODES, f, x -> x.nodes)
                .description("Nodes with a sampled, rated fabric port that this stage-1 task averages into "
                        + "gpupool_leaf_uplink_utilization_ratio for the leaf")
                .tags(tags).register(registry));
        return f;
    }

    /** The task is closed (rebalanced away or stopped): another instance may export its leaves now. */
    @Override
    public void close() {
        for (final List<String> key : new ArrayList<>(leaves.keySet())) {
            remove(key.get(0), key.get(1));
        }
    }
}
