package io.gpupool.collector.live;

import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.collector.fabric.FabricMap;
import io.gpupool.collector.gpu.GpuReading;
import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.kernel.XidEvent;
import io.gpupool.collector.kernel.XidMonitor;
import io.gpupool.collector.nvidiasmi.TopoMatrix;
import io.gpupool.collector.publish.AvroMapping;
import io.gpupool.collector.publish.InventoryAssembler;
import io.gpupool.collector.sysfs.InfinibandSysfsReader;
import io.gpupool.collector.sysfs.PortReading;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Polls one node's sources and turns the readings into records: GpuSamples (with the Xids seen
 * since the previous poll), LinkSamples (rates from the previous read of each port) and the
 * node's inventory. A failing source costs that source's record for this poll, nothing more.
 */
public final class NodeCollector {
    private final String nodeId;
    private final GpuSource gpuSource;
    private final XidMonitor xids;
    private final InfinibandSysfsReader sysfs;
    private final TopoMatrix topo;
    private final FabricMap fabric;
    private final Map<String, String> labels;
    private final Long intervalMillis;
    private final InventoryAssembler assembler;
    private final Map<String, PortReading> previousPorts = new HashMap<>();
    private GpuSnapshot lastGood = new GpuSnapshot("none", null, List.of(), List.of());
    private boolean describesThisHost = true;

    public NodeCollector(final String nodeId, final String pool, final GpuSource gpuSource, final XidMonitor xids,
            final InfinibandSysfsReader sysfs, final TopoMatrix topo, final FabricMap fabric,
            final Map<String, String> labels, final long intervalMillis) {
        this.nodeId = nodeId;
        this.gpuSource = gpuSource;
        this.xids = xids;
        this.sysfs = sysfs;
        this.topo = topo;
        this.fabric = fabric;
        this.labels = Map.copyOf(labels);
        this.intervalMillis = intervalMillis > 0 ? intervalMillis : null;
        this.assembler = new InventoryAssembler(nodeId, pool, gpuSource == null ? "sysfs" : gpuSource.name());
    }

    /**
     * For replays of saved output from another machine: the inventory then leaves CPU and memory
     * empty instead of describing the machine the replay runs on.
     */
    public NodeCollector notThisHost() {
        describesThisHost = false;
        return this;
    }

    public String nodeId() {
        return nodeId;
    }

    public Frame poll(final Instant now) throws InterruptedException {
        final List<String> warnings = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        GpuSamples gpu = null;
        if (gpuSource != null) {
            try {
                final GpuSnapshot snapshot = gpuSource.read();
                warnings.addAll(snapshot.warnings());
                lastGood = snapshot;
                gpu = gpuSamples(snapshot, now);
            } catch (IOException | RuntimeException e) {
                errors.add(gpuSource.name() + ": " + e.getMessage());
            }
        }
        LinkSamples link = null;
        List<PortReading> ports = List.of();
        if (sysfs != null) {
            ports = sysfs.read();
            link = linkSamples(ports, now);
        }
        final NodeInventory inventory = assembler.assemble(lastGood, topo, ports, fabric, now,
                describesThisHost ? HostFacts.cpuMilli() : null, describesThisHost ? HostFacts.memoryMiB() : null, labels);
        return new Frame(inventory, gpu, link, warnings, errors);
    }

    private GpuSamples gpuSamples(final GpuSnapshot snapshot, final Instant now) {
        Map<String, List<XidEvent>> seen = Map.of();
        if (xids != null) {
            for (final GpuReading g : snapshot.gpus()) {
                if (g.pciBusId() != null) {
                    xids.knowGpu(g.pciBusId(), g.uuid());
                }
            }
            seen = xids.drain();
        }
        final List<GpuSample> gpus = new ArrayList<>();
        for (final GpuReading g : snapshot.gpus()) {
            GpuReading reading = g;
            if (xids != null) {
                final Set<Integer> codes = new LinkedHashSet<>();
                if (g.xidCodes() != null) {
                    codes.addAll(g.xidCodes());
                }
                seen.getOrDefault(g.uuid(), List.of()).forEach(e -> codes.add(e.xid()));
                reading = g.withXidCodes(new ArrayList<>(codes));
            }
            gpus.add(AvroMapping.gpuSample(reading));
        }
        return GpuSamples.newBuilder().setNodeId(nodeId).setSampledAt(now).setIntervalMillis(intervalMillis)
                .setSource(gpuSource.name()).setGpus(gpus).build();
    }

    private LinkSamples linkSamples(final List<PortReading> ports, final Instant now) {
        final List<LinkSample> samples = new ArrayList<>();
        Long elapsedMillis = null;
        for (final PortReading p : ports) {
            final String key = p.hca() + "/" + p.port();
            final PortReading previous = previousPorts.get(key);
            samples.add(AvroMapping.linkSample(previous, p));
            if (previous != null && elapsedMillis == null) {
                // the schema's intervalMillis is the span the rates were computed over, not the nominal interval
                elapsedMillis = Math.round((p.readAtNanos() - previous.readAtNanos()) / 1e6);
            }
            previousPorts.put(key, p);
        }
        return LinkSamples.newBuilder().setNodeId(nodeId).setSampledAt(now).setIntervalMillis(elapsedMillis)
                .setSource("sysfs").setPorts(samples).build();
    }
}
