package io.gpupool.collector.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.collector.TestFiles;
import io.gpupool.collector.fabric.TopologySpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dry runs behind {@code gpupool collector --once --output json}, on the real captures. */
class ReplayOutputTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant AT = Instant.parse("2026-07-14T08:12:38Z");

    @Test
    void everyNvidiaSmiCaptureGivesOneSamplePerQuerySection() throws Exception {
        for (final String capture : new String[] {"nvidia-h100-80gb-hbm3__590.48.01.txt", "nvidia-h100-mig__590.48.01.txt",
                "nvidia-l40s__595.80.txt"}) {
            final JsonNode out = JSON.readTree(ReplayOutput.nvidiaSmiFile(TestFiles.path("nvidia-smi/" + capture), "n1", "p", AT));
            assertThat(out.get("gpuSamples")).as(capture).hasSize(2);
            assertThat(out.get("gpuSamples").get(0).get("nodeId").asText()).isEqualTo("n1");
            assertThat(out.get("gpuSamples").get(0).get("sampledAt").asText()).isEqualTo("2026-07-14T08:12:38Z");
            assertThat(out.get("gpuSamples").get(0).get("intervalMillis").isNull()).isTrue();
            assertThat(out.get("inventory").get("gpus")).hasSize(1);
            assertThat(out.get("inventory").get("cpuMilli").isNull()).as("a replay does not describe this machine").isTrue();
            assertThat(out.get("warnings")).isEmpty();
        }
        final JsonNode mig = JSON.readTree(ReplayOutput.nvidiaSmiFile(TestFiles.path("nvidia-smi/nvidia-h100-mig__590.48.01.txt"), "n1", "p", AT));
        final JsonNode gpu = mig.get("gpuSamples").get(1).get("gpus").get(0);
        assertThat(gpu.get("utilizationGpuPct").isNull()).as("[N/A] under MIG").isTrue();
        assertThat(gpu.get("memoryUsedMiB").asLong()).isEqualTo(11125);
        assertThat(gpu.get("migMode").asText()).isEqualTo("ENABLED");
        assertThat(mig.get("inventory").get("driverVersion").asText()).isEqualTo("590.48.01");
    }

    @Test
    void aHeaderlessCaptureSectionTakesItsFieldOrderFromItsCommand(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("capture.txt");
        Files.writeString(file, "# $ nvidia-smi --query-gpu=uuid,power.draw,index,utilization.gpu --format=csv,noheader,nounits\n"
                + "GPU-aaaa, 412.50, 3, 97\n"
                + "# $ nvidia-smi -L\nGPU 3: NVIDIA H100 (UUID: GPU-aaaa)\n");
        final JsonNode g = JSON.readTree(ReplayOutput.nvidiaSmiFile(file, "n", "p", AT)).get("gpuSamples").get(0).get("gpus").get(0);
        assertThat(g.get("uuid").asText()).isEqualTo("GPU-aaaa");
        assertThat(g.get("index").asInt()).isEqualTo(3);
        assertThat(g.get("powerDrawW").asDouble()).isEqualTo(412.5);
        assertThat(g.get("utilizationGpuPct").asDouble()).isEqualTo(97.0);
        assertThat(g.get("temperatureC").isNull()).isTrue();
    }

    @Test
    void dcgmSysfsAndTopology() throws Exception {
        final JsonNode dcgm = JSON.readTree(ReplayOutput.dcgmFile(TestFiles.path("dcgm/metrics-tesla-t4.txt"), "n", "p", AT));
        assertThat(dcgm.get("gpuSamples").get(0).get("source").asText()).isEqualTo("dcgm");
        assertThat(dcgm.get("gpuSamples").get(0).get("gpus").get(0).get("smClockMHz").asInt()).isEqualTo(300);

        final JsonNode sysfs = JSON.readTree(ReplayOutput.sysfs(TestFiles.path("sysfs/h100-ndr-ib-roce"), "n", "p", null, AT));
        final JsonNode ports = sysfs.get("linkSamples").get(0).get("ports");
        assertThat(ports).hasSize(9);
        assertThat(ports.get(8).get("linkLayer").asText()).isEqualTo("ETHERNET");
        assertThat(ports.get(1).get("saturatedCounters").get(0).asText()).isEqualTo("link_downed");
        assertThat(ports.get(0).get("txBytesPerSec").isNull()).as("one read, no rate").isTrue();

        final JsonNode topo = JSON.readTree(ReplayOutput.topology(
                TopologySpec.load("ibnetdiscover:" + TestFiles.path("fabric/ibnetdiscover-ports.out"))));
        assertThat(topo.get("nodes").get("o0002").get("leaf").asText()).isEqualTo("ib-i1l1s01");
        assertThat(topo.get("nodes").get("o0002").get("spine").asText()).isEqualTo("ib-i1l2s01");
    }

    @Test
    void clearErrors(@TempDir final Path dir) throws Exception {
        assertThatThrownBy(() -> ReplayOutput.nvidiaSmiFile(dir.resolve("missing.csv"), "n", "p", AT))
                .hasMessageContaining("--from-file");
        assertThatThrownBy(() -> ReplayOutput.sysfs(dir.resolve("nope"), "n", "p", null, AT)).hasMessageContaining("--sysfs-root");
        assertThatThrownBy(() -> TopologySpec.load("ibnet:" + dir)).hasMessageContaining("ibnetdiscover:FILE");
        final Path capture = dir.resolve("c.txt");
        Files.writeString(capture, "# $ nvidia-smi topo -m\nGPU0\n");
        assertThatThrownBy(() -> ReplayOutput.nvidiaSmiFile(capture, "n", "p", AT)).hasMessageContaining("--query-gpu");
    }
}
