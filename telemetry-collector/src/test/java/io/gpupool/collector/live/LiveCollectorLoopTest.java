package io.gpupool.collector.live;

import io.gpupool.avro.GpuSample;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.NodeInventory;
import io.gpupool.collector.TestFiles;
import io.gpupool.collector.fake.FakeNvidiaSmi;
import io.gpupool.collector.fabric.StaticTopologyParser;
import io.gpupool.collector.kernel.FileTailSource;
import io.gpupool.collector.kernel.XidMonitor;
import io.gpupool.collector.metrics.CollectorMetrics;
import io.gpupool.collector.publish.CollectingSink;
import io.gpupool.collector.sysfs.InfinibandSysfsReader;
import io.gpupool.metrics.MetricsServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live path end to end on one node, without a GPU: a real child process stands in for
 * nvidia-smi (printing the H100 capture's values for 8 GPUs), a copy of the real sysfs tree
 * stands in for /sys/class/infiniband, a growing file for the kernel log, and /metrics is read
 * over real HTTP.
 */
class LiveCollectorLoopTest {

    @Test
    void pollsPublishesAndServesMetrics(@TempDir final Path dir) throws Exception {
        final Path smi = FakeNvidiaSmi.write(dir.resolve("smi"), 8);
        final Path sysfs = dir.resolve("ib");
        copyTree(TestFiles.path("sysfs/h100-ndr-ib-roce"), sysfs);
        final Path kernelLog = dir.resolve("kern.log");
        Files.writeString(kernelLog, "");
        final XidMonitor xids = new XidMonitor(new FileTailSource(kernelLog, true));
        final NvidiaSmiCommand nvidiaSmi = new NvidiaSmiCommand(smi.toString(), Duration.ofSeconds(10));
        final NodeCollector collector = new NodeCollector("gpu-node-1", "default", nvidiaSmi, xids,
                new InfinibandSysfsReader(sysfs), nvidiaSmi.topology(),
                StaticTopologyParser.parse("gpu-node-1 leaf-7 spine-2 mlx5_0 0\n"), Map.of("rack", "r1"), 1000);
        final CollectingSink sink = new CollectingSink();
        final CollectorMetrics metrics = new CollectorMetrics();
        final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (CollectorLoop loop = new CollectorLoop(collector, sink, metrics, Duration.ofSeconds(1), clock);
                MetricsServer server = MetricsServer.start(metrics.registry(), "127.0.0.1", 0)) {
            loop.pollOnce();
            assertThat(sink.inventories).hasSize(1);
            final NodeInventory inv = sink.inventories.get(0);
            assertThat(inv.getGpus()).hasSize(8);
            assertThat(inv.getGpus().get(5).getNvlinkGroup()).isEqualTo("nvlink-GPU0");
            assertThat(inv.getGpus().get(0).getPcieSwitch()).isEqualTo(inv.getHcas().get(0).getPcieSwitch()).isNotNull();
            assertThat(inv.getHcas()).hasSize(9);
            assertThat(inv.getHcas().get(0).getLeaf()).isEqualTo("leaf-7");
            assertThat(inv.getLeaf()).isEqualTo("leaf-7");
            assertThat(inv.getSpine()).isEqualTo("spine-2");
            assertThat(inv.getDriverVersion()).isEqualTo("590.48.01");
            assertThat(sink.gpus.get(0).getGpus()).hasSize(8).allMatch(g -> g.getXidCodes().isEmpty());
            assertThat(sink.links.get(0).getPorts().get(0).getTxBytesPerSec()).as("first read: no rate").isNull();

            Files.writeString(kernelLog, "[1.0] NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n",
                    StandardOpenOption.APPEND);
            final Path xmit = sysfs.resolve("mlx5_0/ports/1/counters/port_xmit_data");
            Files.writeString(xmit, (Long.parseLong(Files.readString(xmit).trim()) + 250_000_000L) + "\n");
            clock.advance(Duration.ofSeconds(1));
            Thread.sleep(20); // kept: a rate divides by System.nanoTime() elapsed, which the injected clock does not move
            loop.pollOnce();
            assertThat(sink.inventories).as("unchanged inventory is not republished").hasSize(1);
            final GpuSample gpu1 = sink.gpus.get(1).getGpus().get(1);
            assertThat(gpu1.getXidCodes()).containsExactly(79);
            assertThat(sink.gpus.get(1).getGpus().get(0).getXidCodes()).isEmpty();
            final LinkSample port0 = sink.links.get(1).getPorts().get(0);
            assertThat(port0.getTxBytesPerSec()).isPositive();
            assertThat(sink.links.get(0).getIntervalMillis()).as("no rates on a first read").isNull();
            assertThat(sink.links.get(1).getIntervalMillis()).as("span of the rates").isGreaterThanOrEqualTo(20L);
            assertThat(sink.links.get(1).getPorts().get(1).getSaturatedCounters()).containsExactly("link_downed");

            final String scrape = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(scrape).contains("gpupool_gpu_utilization_percent{gpu=\"0\",model=\"NVIDIA H100 80GB HBM3\",node=\"gpu-node-1\",pool=\"default\",uuid=\"GPU-00000000-0000-0000-0000-000000000000\"} 100.0");
            assertThat(scrape).contains("gpupool_ib_port_transmit_bytes_per_second{hca=\"mlx5_0\",link_layer=\"infiniband\",node=\"gpu-node-1\",pool=\"default\",port=\"1\"}");
            assertThat(scrape).contains("gpupool_gpu_last_xid{gpu=\"1\"");
            assertThat(scrape).contains("gpupool_ib_port_link_downed{hca=\"mlx5_1\",link_layer=\"infiniband\",node=\"gpu-node-1\",pool=\"default\",port=\"1\"} 255.0");
            assertThat(scrape).contains("gpupool_collector_poll_seconds_count 2");
        }
    }

    @Test
    void aFailingNvidiaSmiCostsOnlyItsRecord(@TempDir final Path dir) throws Exception {
        final Path broken = dir.resolve("nvidia-smi");
        Files.writeString(broken, "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n");
        broken.toFile().setExecutable(true);
        final NodeCollector collector = new NodeCollector("n", "default", new NvidiaSmiCommand(broken.toString(), Duration.ofSeconds(5)),
                null, new InfinibandSysfsReader(TestFiles.path("sysfs/h100-ndr-ib-roce")), null, null, Map.of(), 1000);
        final Frame frame = collector.poll(Instant.EPOCH);
        assertThat(frame.gpu().getGpus()).isEmpty();
        assertThat(frame.warnings()).singleElement().asString().contains("not a GPU row");
        assertThat(frame.link().getPorts()).hasSize(9);
    }

    static void copyTree(final Path from, final Path to) throws Exception {
        try (Stream<Path> paths = Files.walk(from)) {
            for (final Path p : (Iterable<Path>) paths::iterator) {
                final Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                    target.toFile().setWritable(true);
                }
            }
        }
    }

    /** A clock the test moves. */
    static final class MutableClock extends Clock {
        private Instant now;

        MutableClock(final Instant start) {
            this.now = start;
        }

        void advance(final Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(final ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
