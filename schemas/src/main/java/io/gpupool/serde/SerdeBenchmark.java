package io.gpupool.serde;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.LinkLayer;
import io.gpupool.avro.MigMode;
import io.gpupool.avro.NodeInventory;
import io.gpupool.registry.InMemorySchemaRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * Throughput of the wire-format serdes on realistic records (an 8-GPU node's samples and its
 * inventory with 8 HCAs), with the registry answered from memory so only the serde is measured.
 * Prints name=value lines. Run:
 * <pre>
 *   java -cp "$(cat cp.txt):schemas/target/classes" io.gpupool.serde.SerdeBenchmark [seconds per case]
 * </pre>
 */
public final class SerdeBenchmark {
    private SerdeBenchmark() {
    }

    public static void main(final String[] args) {
        final double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
        final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();
        run("gpu_samples_8gpu", samples(), GpuSamples.class, registry, seconds);
        run("node_inventory_8gpu_8hca", inventory(), NodeInventory.class, registry, seconds);
    }

    private static <T extends SpecificRecord> void run(final String name, final T record, final Class<T> type,
                                                       final InMemorySchemaRegistry registry, final double seconds) {
        final SpecificAvroSerializer<T> ser = new SpecificAvroSerializer<>(registry, true, false);
        final SpecificAvroDeserializer<T> de = new SpecificAvroDeserializer<>(registry, type);
        final String topic = "bench-" + name;
        final byte[] bytes = ser.serialize(topic, record);
        if (!de.deserialize(topic, bytes).equals(record)) {
            throw new IllegalStateException(name + ": record did not survive a round trip");
        }
        measure(seconds / 3, () -> ser.serialize(topic, record)); // warm-up
        final double serPerSec = measure(seconds, () -> ser.serialize(topic, record));
        measure(seconds / 3, () -> de.deserialize(topic, bytes));
        final double dePerSec = measure(seconds, () -> de.deserialize(topic, bytes));
        System.out.printf("serde.%s.bytes_per_record=%d%n", name, bytes.length);
        System.out.printf("serde.%s.serialize_per_sec=%.0f%n", name, serPerSec);
        System.out.printf("serde.%s.deserialize_per_sec=%.0f%n", name, dePerSec);
    }

    private static double measure(final double seconds, final Runnable op) {
        final long budget = (long) (seconds * 1e9);
        final long start = System.nanoTime();
        long n = 0;
        long now;
        do {
            for (int i = 0; i < 1000; i++) {
                op.run();
            }
            n += 1000;
            now = System.nanoTime();
        } while (now - start < budget);
        return n / ((now - start) / 1e9);
    }

    static GpuSamples samples() {
        final List<GpuSample> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            gpus.add(GpuSample.newBuilder().setUuid("GPU-5f0c1a2b-0000-4000-8000-00000000000" + i).setIndex(i)
                    .setUtilizationGpuPct(87.0 + i).setUtilizationMemoryPct(41.0).setMemoryUsedMiB(61_000L + i)
                    .setMemoryTotalMiB(81_559L).setTemperatureC(61.0).setPowerDrawW(512.3).setPowerLimitW(700.0)
                    .setSmClockMHz(1980).setEccUncorrectableVolatile(0L).setRemappedRowsPending(false)
                    .setRemappedRowsFailure(false).setRetiredPagesPending(null).setMigMode(MigMode.DISABLED)
                    .setXidCodes(List.of()).build());
        }
        return GpuSamples.newBuilder().setNodeId("gpu-node-0417").setSampledAt(Instant.ofEpochMilli(1_700_000_000_000L))
                .setIntervalMillis(1000L).setSource("nvidia-smi").setGpus(gpus).build();
    }

    static NodeInventory inventory() {
        final List<GpuInfo> gpus = new ArrayList<>();
        final List<HcaPort> hcas = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            gpus.add(GpuInfo.newBuilder().setUuid("GPU-5f0c1a2b-0000-4000-8000-00000000000" + i).setIndex(i)
                    .setModel("NVIDIA H100 80GB HBM3").setMemoryMiB(81_559L)
                    .setPciBusId(String.format("00000000:%02X:00.0", 0x18 + 0x10 * i)).setNvlinkGroup("nvswitch0")
                    .setPcieSwitch("pcie-sw" + i / 2).setNumaNode(i / 4).setMigMode(MigMode.DISABLED).build());
            hcas.add(HcaPort.newBuilder().setName("mlx5_" + i).setPort(1).setLinkLayer(LinkLayer.INFINIBAND)
                    .setRateGbps(400.0).setPcieSwitch("pcie-sw" + i / 2).setLeaf("leaf-" + i).setSpine("spine-0")
                    .setRail("rail-" + i).build());
        }
        return NodeInventory.newBuilder().setNodeId("gpu-node-0417").setPool("pool-a").setLeaf("leaf-0")
                .setSpine("spine-0").setRail("rail-0").setObservedAt(Instant.ofEpochMilli(1_700_000_000_000L))
                .setSource("nvidia-smi").setGpus(gpus).setHcas(hcas).setCpuMilli(224_000L).setMemoryMiB(2_063_000L)
                .setDriverVersion("550.54.15").build();
    }
}
