package io.gpupool.collector.metrics;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PortState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Per-GPU and per-port gauges of what the collector read, named after dcgm-exporter and
 * node_exporter's infiniband collector under {@code gpupool_}, so Grafana can show the hardware
 * without another exporter. A reading the source did not give shows as NaN, never 0. Every series
 * carries the node's pool (from its inventory), so dashboards filter them by pool like the
 * scheduler's own gauges.
 */
public final class HardwareGauges {
    private final MeterRegistry registry;
    private final Map<String, double[]> values = new ConcurrentHashMap<>();
    private final Map<String, String> modelByUuid = new ConcurrentHashMap<>();
    private final Map<String, String> layerByPort = new ConcurrentHashMap<>();
    private final Map<String, String> poolByNode = new ConcurrentHashMap<>();
    /** Gauge keys each node's last GPU and link samples set: the rest of that node's gauges go NaN. */
    private final Map<String, Set<String>> keysByNodeAndKind = new ConcurrentHashMap<>();

    public HardwareGauges(final MeterRegistry registry) {
        this.registry = registry;
    }

    /** Remembers pool, model and link layer labels, which samples do not carry. */
    public void inventory(final NodeInventory inventory) {
        poolByNode.put(inventory.getNodeId(), inventory.getPool());
        for (final GpuInfo g : inventory.getGpus()) {
            modelByUuid.put(g.getUuid(), g.getModel());
        }
        inventory.getHcas().forEach(h -> layerByPort.put(portKey(inventory.getNodeId(), h.getName(), h.getPort()),
                h.getLinkLayer().name().toLowerCase(Locale.ROOT)));
    }

    public void gpus(final GpuSamples samples) {
        final String node = samples.getNodeId();
        final Set<String> touched = new HashSet<>();
        for (final GpuSample g : samples.getGpus()) {
            final Tags tags = Tags.of("pool", pool(node), "node", node,
                    "gpu", g.getIndex() == null ? "" : g.getIndex().toString(),
                    "uuid", g.getUuid(), "model", modelByUuid.getOrDefault(g.getUuid(), ""));
            set("gpupool.gpu.utilization.percent", "GPU utilization (DCGM_FI_DEV_GPU_UTIL)", tags, g.getUtilizationGpuPct());
            set("gpupool.gpu.memory.copy.utilization.percent", "Memory utilization (DCGM_FI_DEV_MEM_COPY_UTIL)", tags, g.getUtilizationMemoryPct());
            set("gpupool.gpu.framebuffer.used.mebibytes", "Framebuffer memory used in MiB (DCGM_FI_DEV_FB_USED)", tags, num(g.getMemoryUsedMiB()));
            set("gpupool.gpu.framebuffer.total.mebibytes", "Framebuffer memory total in MiB", tags, num(g.getMemoryTotalMiB()));
            set("gpupool.gpu.temperature.celsius", "GPU temperature (DCGM_FI_DEV_GPU_TEMP)", tags, g.getTemperatureC());
            set("gpupool.gpu.power.usage.watts", "Power draw (DCGM_FI_DEV_POWER_USAGE)", tags, g.getPowerDrawW());
            set("gpupool.gpu.power.limit.watts", "Enforced power limit", tags, g.getPowerLimitW());
            set("gpupool.gpu.sm.clock.megahertz", "SM clock (DCGM_FI_DEV_SM_CLOCK)", tags, num(g.getSmClockMHz()));
            set("gpupool.gpu.ecc.uncorrectable.volatile", "Uncorrectable ECC errors since driver load", tags, num(g.getEccUncorrectableVolatile()));
            set("gpupool.gpu.remapped.rows.failure", "1 when a row remap failed", tags, flag(g.getRemappedRowsFailure()));
            final List<Integer> xids = g.getXidCodes();
            if (xids != null && !xids.isEmpty()) {
                set("gpupool.gpu.last.xid", "Last Xid error seen (DCGM_FI_DEV_XID_ERRORS)", tags, (double) xids.get(xids.size() - 1));
            }
            touched.add(tags.toString());
        }
        forgetVanished(node + "/gpu", "gpupool.gpu.", touched);
    }

    /** A GPU or port that is gone from a node's samples (fell off the bus, unplugged) shows NaN, not its last value. */
    private void forgetVanished(final String nodeKind, final String prefix, final Set<String> touchedTags) {
        final Set<String> previous = keysByNodeAndKind.put(nodeKind, touchedTags);
        if (previous == null) {
            return;
        }
        for (final String tags : previous) {
            if (!touchedTags.contains(tags)) {
                values.forEach((key, holder) -> {
                    if (key.startsWith(prefix) && key.endsWith(tags)) {
                        holder[0] = Double.NaN;
                    }
                });
            }
        }
    }

    public void links(final LinkSamples samples) {
        final String node = samples.getNodeId();
        final Set<String> touched = new HashSet<>();
        for (final LinkSample p : samples.getPorts()) {
            final String layer = p.getLinkLayer() != null ? p.getLinkLayer().name().toLowerCase(Locale.ROOT)
                    : layerByPort.getOrDefault(portKey(node, p.getHca(), p.getPort()), "unknown");
            final Tags tags = Tags.of("pool", pool(node), "node", node, "hca", p.getHca(),
                    "port", Integer.toString(p.getPort()), "link_layer", layer);
            set("gpupool.ib.port.transmit.bytes.per.second", "Transmit rate from port_xmit_data x 4", tags, p.getTxBytesPerSec());
            set("gpupool.ib.port.receive.bytes.per.second", "Receive rate from port_rcv_data x 4", tags, p.getRxBytesPerSec());
            set("gpupool.ib.port.rate.gbps", "Link rate", tags, p.getRateGbps());
            set("gpupool.ib.port.active", "1 when the port state is ACTIVE", tags,
                    p.getState() == null ? null : p.getState() == PortState.ACTIVE ? 1.0 : 0.0);
            set("gpupool.ib.port.symbol.errors", "symbol_error counter", tags, num(p.getSymbolErrors()));
            set("gpupool.ib.port.link.downed", "link_downed counter", tags, num(p.getLinkDowned()));
            set("gpupool.ib.port.receive.errors", "port_rcv_errors counter", tags, num(p.getRcvErrors()));
            set("gpupool.ib.port.transmit.discards", "port_xmit_discards counter", tags, num(p.getXmitDiscards()));
            set("gpupool.ib.port.transmit.wait", "port_xmit_wait counter", tags, num(p.getXmitWait()));
            set("gpupool.ib.port.np.cnp.sent", "RoCE congestion notifications sent", tags, num(p.getNpCnpSent()));
            set("gpupool.ib.port.out.of.buffer", "RoCE packets dropped for lack of receive buffers", tags, num(p.getOutOfBuffer()));
            set("gpupool.ib.port.saturated.counters", "Counters stuck at their width's maximum", tags, (double) p.getSaturatedCounters().size());
            touched.add(tags.toString());
        }
        forgetVanished(node + "/link", "gpupool.ib.", touched);
    }

    private void set(final String name, final String help, final Tags tags, final Double value) {
        final String key = name + tags;
        final double[] holder = values.computeIfAbsent(key, k -> {
            final double[] h = {Double.NaN};
            Gauge.builder(name, h, (ToDoubleFunction<double[]>) a -> a[0]).description(help).tags(tags).register(registry);
            return h;
        });
        holder[0] = value == null ? Double.NaN : value;
    }

    /** Empty (no label in Prometheus) until the node's inventory is seen; collectors publish it first. */
    private String pool(final String node) {
        return poolByNode.getOrDefault(node, "");
    }

    private static Double num(final Number n) {
        return n == null ? null : n.doubleValue();
    }

    private static Double flag(final Boolean b) {
        return b == null ? null : b ? 1.0 : 0.0;
    }

    private static String portKey(final String node, final String hca, final int port) {
        return node + "/" + hca + "/" + port;
    }
}
