package io.gpupool.collector.publish;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.GpuSample;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.LinkLayer;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.PortPhysState;
import io.gpupool.avro.PortState;
import io.gpupool.collector.gpu.GpuReading;
import io.gpupool.collector.sysfs.LinkRates;
import io.gpupool.collector.sysfs.PortReading;
import java.util.ArrayList;
import java.util.List;

/** Collector readings to the Avro records of the telemetry and inventory topics. */
public final class AvroMapping {
    private AvroMapping() {
    }

    public static GpuSample gpuSample(final GpuReading g) {
        return GpuSample.newBuilder()
                .setUuid(g.uuid())
                .setIndex(g.index())
                .setUtilizationGpuPct(g.utilizationGpuPct())
                .setUtilizationMemoryPct(g.utilizationMemoryPct())
                .setMemoryUsedMiB(g.memoryUsedMiB())
                .setMemoryTotalMiB(g.memoryTotalMiB())
                .setTemperatureC(g.temperatureC())
                .setPowerDrawW(g.powerDrawW())
                .setPowerLimitW(g.powerLimitW())
                .setSmClockMHz(g.smClockMHz())
                .setEccUncorrectableVolatile(g.eccUncorrectableVolatile())
                .setRemappedRowsPending(g.remappedRowsPending())
                .setRemappedRowsFailure(g.remappedRowsFailure())
                .setRetiredPagesPending(g.retiredPagesPending())
                .setMigMode(migMode(g.migMode()))
                .setXidCodes(g.xidCodes() == null ? null : new ArrayList<>(g.xidCodes()))
                .build();
    }

    /** Inventory view of a GPU; placement fields (NVLink group, PCIe switch, NUMA) come from topo -m. */
    public static GpuInfo gpuInfo(final GpuReading g, final int fallbackIndex, final String nvlinkGroup,
            final String pcieSwitch, final Integer numaNode) {
        return GpuInfo.newBuilder()
                .setUuid(g.uuid())
                .setIndex(g.index() == null ? fallbackIndex : g.index())
                .setModel(g.name() == null ? "unknown" : g.name())
                .setMemoryMiB(g.memoryTotalMiB())
                .setPciBusId(g.pciBusId())
                .setNvlinkGroup(nvlinkGroup)
                .setPcieSwitch(pcieSwitch)
                .setNumaNode(numaNode)
                .setMigMode(migMode(g.migMode()))
                .build();
    }

    /** One port's sample; rates need the previous read of the same port (null on the first). */
    public static LinkSample linkSample(final PortReading previous, final PortReading p) {
        final List<String> saturated = new ArrayList<>(p.saturated());
        saturated.sort(null);
        return LinkSample.newBuilder()
                .setHca(p.hca())
                .setPort(p.port())
                .setState(portState(p.state()))
                .setPhysState(physState(p.physState()))
                .setRateGbps(p.rateGbps())
                .setLinkLayer(linkLayer(p.linkLayer()))
                .setTxBytesPerSec(LinkRates.txBytesPerSec(previous, p))
                .setRxBytesPerSec(LinkRates.rxBytesPerSec(previous, p))
                .setSymbolErrors(p.counter("symbol_error"))
                .setLinkDowned(p.counter("link_downed"))
                .setRcvErrors(p.counter("port_rcv_errors"))
                .setXmitDiscards(p.counter("port_xmit_discards"))
                .setXmitWait(p.counter("port_xmit_wait"))
                .setNpCnpSent(p.counter("np_cnp_sent"))
                .setRpCnpHandled(p.counter("rp_cnp_handled"))
                .setOutOfBuffer(p.counter("out_of_buffer"))
                .setSaturatedCounters(saturated)
                .build();
    }

    public static HcaPort hcaPort(final PortReading p, final String pcieSwitch, final String leaf,
            final String spine, final String rail) {
        return HcaPort.newBuilder()
                .setName(p.hca())
                .setPort(p.port())
                .setLinkLayer(p.linkLayer() == null ? LinkLayer.UNKNOWN : linkLayer(p.linkLayer()))
                .setRateGbps(p.rateGbps())
                .setPcieSwitch(pcieSwitch)
                .setLeaf(leaf)
                .setSpine(spine)
                .setRail(rail)
                .build();
    }

    static io.gpupool.avro.MigMode migMode(final io.gpupool.collector.gpu.MigMode m) {
        return m == null ? null : io.gpupool.avro.MigMode.valueOf(m.name());
    }

    static LinkLayer linkLayer(final String name) {
        return name == null ? null : enumOr(LinkLayer.class, name, LinkLayer.UNKNOWN);
    }

    static PortState portState(final String name) {
        return name == null ? null : enumOr(PortState.class, name, PortState.UNKNOWN);
    }

    static PortPhysState physState(final String name) {
        return name == null ? null : enumOr(PortPhysState.class, name, PortPhysState.UNKNOWN);
    }

    private static <E extends Enum<E>> E enumOr(final Class<E> type, final String name, final E unknown) {
        try {
            return Enum.valueOf(type, name);
        } catch (IllegalArgumentException e) {
            return unknown;
        }
    }
}
