package io.gpupool.collector.sim;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.LinkLayer;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.MigMode;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PortPhysState;
import io.gpupool.avro.PortState;
import io.gpupool.collector.fabric.Attachment;
import io.gpupool.collector.fabric.FabricMap;
import io.gpupool.collector.publish.RecordSink;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A synthetic fleet: nodes x GPUs under leaves and spines, two GPU models, an InfiniBand and a RoCE
 * island. Its load follows {@link BusyGpus} (what the sink reports as running) and its faults come
 * from {@link FleetFaults}; every other variation is seeded noise, so the same spec, busy set and
 * faults give the same records.
 *
 * <p>Each {@link #tick} emits, per node, one GpuSamples and one LinkSamples record, plus its
 * NodeInventory on the first tick and again when the node comes back from silence.
 */
public final class SimulatedFleet {
    private static final int NVLINK_DOMAIN = 8;

    private final FleetSpec spec;
    private final BusyGpus busy;
    private final FleetFaults faults;
    private final List<SimulatedNode> nodes = new ArrayList<>();
    private final Map<String, SimulatedNode> byId = new LinkedHashMap<>();
    private final Set<String> inventoryDue = new HashSet<>();
    private long tick;
    private volatile RandomFaults randomFaults;

    public SimulatedFleet(final FleetSpec spec, final BusyGpus busy, final FleetFaults faults) {
        this.spec = spec;
        this.busy = busy;
        this.faults = faults;
        final int width = Math.max(5, Integer.toString(spec.nodes()).length());
        final int spines = spec.spines();
        for (int n = 0; n < spec.nodes(); n++) {
            final int leafIndex = n / spec.nodesPerLeaf();
            final int spineIndex = leafIndex / spec.leavesPerSpine();
            final boolean roce = spineIndex >= spines - spec.roceSpines();
            final String fabric = roce ? "roce" : "ib";
            final String id = String.format(Locale.ROOT, "node-%0" + width + "d", n);
            final SimulatedNode node = new SimulatedNode(id,
                    String.format(Locale.ROOT, "leaf-%s-%03d", fabric, leafIndex),
                    String.format(Locale.ROOT, "spine-%s-%02d", fabric, spineIndex),
                    roce, spineIndex % 2 == 0 ? GpuModel.H100 : GpuModel.A100,
                    spec.gpusPerNode(), spec.hcasPerNode(), spec.seed());
            nodes.add(node);
            byId.put(id, node);
            inventoryDue.add(id);
        }
    }

    public FleetSpec spec() {
        return spec;
    }

    public BusyGpus busyGpus() {
        return busy;
    }

    public FleetFaults faults() {
        return faults;
    }

    public List<String> nodeIds() {
        return List.copyOf(byId.keySet());
    }

    public List<String> gpuUuids(final String nodeId) {
        return node(nodeId).gpuUuids;
    }

    public FabricMap fabric() {
        final List<Attachment> attachments = new ArrayList<>();
        for (final SimulatedNode n : nodes) {
            attachments.add(new Attachment(n.id, n.hcas.isEmpty() ? null : n.hcas.get(0), n.leaf, List.of(n.spine), "0"));
        }
        return new FabricMap("simulated", attachments, List.of());
    }

    /** Lets faults strike by seeded chance from the next tick on; null stops it (faults already on stay until cleared). */
    public void randomFaults(final RandomFaults faultsByChance) {
        this.randomFaults = faultsByChance;
    }

    /** Emits this tick's records for every node that is not silent. */
    public void tick(final Instant at, final long intervalMillis, final RecordSink sink) {
        final long t;
        synchronized (this) {
            t = tick++;
        }
        final RandomFaults chance = randomFaults;
        if (chance != null) {
            final List<List<String>> hcas = new ArrayList<>(nodes.size());
            nodes.forEach(n -> hcas.add(n.hcas));
            chance.apply(t, new ArrayList<>(byId.keySet()), spec.gpusPerNode(), hcas, faults);
        }
        for (int i = 0; i < nodes.size(); i++) {
            final SimulatedNode n = nodes.get(i);
            if (faults.isSilent(n.id)) {
                synchronized (this) {
                    inventoryDue.add(n.id); // back from silence: announce itself again
                }
                continue;
            }
            final boolean announce;
            synchronized (this) {
                announce = inventoryDue.remove(n.id);
            }
            if (announce) {
                sink.publishInventory(inventory(n, at));
            }
            sink.publishGpu(gpuSamples(n, i, t, at, intervalMillis));
            sink.publishLink(linkSamples(n, i, t, at, intervalMillis));
        }
    }

    public NodeInventory inventory(final String nodeId, final Instant at) {
        return inventory(node(nodeId), at);
    }

    private NodeInventory inventory(final SimulatedNode n, final Instant at) {
        final List<GpuInfo> gpus = new ArrayList<>();
        for (int g = 0; g < n.gpuUuids.size(); g++) {
            gpus.add(GpuInfo.newBuilder()
                    .setUuid(n.gpuUuids.get(g))
                    .setIndex(g)
                    .setModel(n.model.productName())
                    .setMemoryMiB(n.model.memoryMiB())
                    .setPciBusId(String.format(Locale.ROOT, "00000000:%02X:00.0", 0x18 + g * 0x10))
                    .setNvlinkGroup("nvlink-GPU" + (g / NVLINK_DOMAIN * NVLINK_DOMAIN))
                    .setPcieSwitch("pcie-GPU" + (g / 2 * 2))
                    .setNumaNode(g < n.gpuUuids.size() / 2 ? 0 : 1)
                    .setMigMode(MigMode.DISABLED)
                    .build());
        }
        final List<HcaPort> hcas = new ArrayList<>();
        for (int h = 0; h < n.hcas.size(); h++) {
            hcas.add(HcaPort.newBuilder()
                    .setName(n.hcas.get(h))
                    .setPort(1)
                    .setLinkLayer(n.roce ? LinkLayer.ETHERNET : LinkLayer.INFINIBAND)
                    .setRateGbps(n.roce ? 200.0 : 400.0)
                    .setPcieSwitch("pcie-GPU" + (h * Math.max(1, n.gpuUuids.size() / Math.max(1, n.hcas.size())) / 2 * 2))
                    .setLeaf(n.leaf)
                    .setSpine(n.spine)
                    .setRail(Integer.toString(h))
                    .build());
        }
        return NodeInventory.newBuilder()
                .setNodeId(n.id)
                .setPool(spec.pool())
                .setLeaf(n.leaf)
                .setSpine(n.spine)
                .setRail("0")
                .setObservedAt(at)
                .setSource("simulated")
                .setGpus(gpus)
                .setCpuMilli(224_000L)
                .setMemoryMiB(2_063_000L)
                .setHcas(hcas)
                .setDriverVersion("590.48.01")
                .setLabels(Map.of("fabric", n.roce ? "roce" : "infiniband"))
                .build();
    }

    private GpuSamples gpuSamples(final SimulatedNode n, final int ni, final long t, final Instant at,
            final long intervalMillis) {
        final List<GpuSample> gpus = new ArrayList<>(n.gpuUuids.size());
        final GpuModel m = n.model;
        for (int g = 0; g < n.gpuUuids.size(); g++) {
            final boolean isBusy = busy.isBusy(n.gpuUuids.get(g));
            final double r1 = Noise.unit(spec.seed(), t, ni, g, 1);
            final double r2 = Noise.unit(spec.seed(), t, ni, g, 2);
            final double util = isBusy ? 85 + 15 * r1 : (r1 < 0.05 ? 3 * r2 : 0);
            final long memUsed = isBusy ? Math.round(m.memoryMiB() * (0.55 + 0.35 * r2)) : Math.round(4 * r2);
            final double power = isBusy ? m.powerLimitW() * (0.7 + 0.25 * r1) : m.idlePowerW() + 5 * r2;
            final Double hot = faults.overheatedTo(n.id, g);
            final double temp = hot != null ? hot : isBusy ? 58 + 14 * r2 : 31 + 6 * r2;
            gpus.add(GpuSample.newBuilder()
                    .setUuid(n.gpuUuids.get(g))
                    .setIndex(g)
                    .setUtilizationGpuPct(round1(util))
                    .setUtilizationMemoryPct(round1(isBusy ? util * 0.4 : 0))
                    .setMemoryUsedMiB(memUsed)
                    .setMemoryTotalMiB(m.memoryMiB())
                    .setTemperatureC(round1(temp))
                    .setPowerDrawW(round1(power))
                    .setPowerLimitW(m.powerLimitW())
                    .setSmClockMHz(isBusy ? m.maxSmClockMHz() : 345)
                    .setEccUncorrectableVolatile(0L)
                    .setRemappedRowsPending(false)
                    .setRemappedRowsFailure(false)
                    .setRetiredPagesPending(null)
                    .setMigMode(MigMode.DISABLED)
                    .setXidCodes(new ArrayList<>(faults.takeXids(n.id, g)))
                    .build());
        }
        return GpuSamples.newBuilder().setNodeId(n.id).setSampledAt(at).setIntervalMillis(intervalMillis)
                .setSource("simulated").setGpus(gpus).build();
    }

    private LinkSamples linkSamples(final SimulatedNode n, final int ni, final long t, final Instant at,
            final long intervalMillis) {
        int busyCount = 0;
        for (final String uuid : n.gpuUuids) {
            if (busy.isBusy(uuid)) {
                busyCount++;
            }
        }
        final double load = n.gpuUuids.isEmpty() ? 0 : (double) busyCount / n.gpuUuids.size();
        final double rateGbps = n.roce ? 200.0 : 400.0;
        final List<LinkSample> ports = new ArrayList<>(n.hcas.size());
        for (int h = 0; h < n.hcas.size(); h++) {
            final String hca = n.hcas.get(h);
            final boolean down = faults.isDown(n.id, hca) || faults.isFlapping(n.id, hca) && t % 2 == 1;
            final long linkDowned;
            final long xmitWait;
            final long cnps;
            synchronized (n) {
                if (down && !n.wasDown[h]) {
                    n.linkDowned[h]++;
                }
                n.wasDown[h] = down;
                // congestion grows with load: a busy leaf waits and (RoCE) sends CNPs
                n.xmitWait[h] += Math.round(load * load * 5_000 * Noise.unit(spec.seed(), t, ni, 100 + h, 4));
                n.cnps[h] += Math.round(load * load * 40 * Noise.unit(spec.seed(), t, ni, 100 + h, 5));
                linkDowned = n.linkDowned[h];
                xmitWait = n.xmitWait[h];
                cnps = n.cnps[h];
            }
            final double bytesPerSec = down ? 0 : rateGbps * 1e9 / 8 * load * (0.5 + 0.3 * Noise.unit(spec.seed(), t, ni, 100 + h, 3));
            ports.add(LinkSample.newBuilder()
                    .setHca(hca)
                    .setPort(1)
                    .setState(down ? PortState.DOWN : PortState.ACTIVE)
                    .setPhysState(down ? PortPhysState.POLLING : PortPhysState.LINK_UP)
                    .setRateGbps(down ? null : rateGbps)
                    .setLinkLayer(n.roce ? LinkLayer.ETHERNET : LinkLayer.INFINIBAND)
                    .setTxBytesPerSec(Math.floor(bytesPerSec))
                    .setRxBytesPerSec(Math.floor(bytesPerSec * 0.98))
                    .setSymbolErrors(0L)
                    .setLinkDowned(linkDowned)
                    .setRcvErrors(0L)
                    .setXmitDiscards(0L)
                    .setXmitWait(xmitWait)
                    .setNpCnpSent(n.roce ? cnps : null)
                    .setRpCnpHandled(n.roce ? cnps : null)
                    .setOutOfBuffer(n.roce ? 0L : null)
                    .setSaturatedCounters(Collections.emptyList())
                    .build());
        }
        return LinkSamples.newBuilder().setNodeId(n.id).setSampledAt(at).setIntervalMillis(intervalMillis)
                .setSource("simulated").setPorts(ports).build();
    }

    private SimulatedNode node(final String nodeId) {
        final SimulatedNode n = byId.get(nodeId);
        if (n == null) {
            throw new IllegalArgumentException("no node '" + nodeId + "' in the simulated fleet");
        }
        return n;
    }

    private static double round1(final double v) {
        return Math.round(v * 10) / 10.0;
    }
}
