package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.collector.fake.FakeSysfs;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpupool collector} dry runs and flag errors through the real command line. */
class CollectorCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void nvidiaSmiCsvWithHeaderAndUnits(@TempDir final Path dir) throws Exception {
        final Path csv = dir.resolve("smi.csv");
        Files.writeString(csv, "index, uuid, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"
                + "0, GPU-1, NVIDIA H100 80GB HBM3, 100 %, 19818 MiB, 631.95 W\n"
                + "1, GPU-2, NVIDIA H100 80GB HBM3, [N/A], [N/A], [Unknown Error]\n");
        final CliRun run = CliRun.of("collector", "--source", "nvidia-smi", "--from-file", csv.toString(), "--once",
                "--output", "json", "--node-id", "n1");
        assertThat(run.exitCode()).as(run.err()).isZero();
        final JsonNode gpus = JSON.readTree(run.out()).get("gpuSamples").get(0).get("gpus");
        assertThat(gpus.get(0).get("memoryUsedMiB").asLong()).isEqualTo(19818);
        assertThat(gpus.get(1).get("utilizationGpuPct").isNull()).isTrue();
        assertThat(gpus.get(1).get("powerDrawW").isNull()).isTrue();
    }

    @Test
    void sysfsAndTopology(@TempDir final Path dir) throws Exception {
        final CliRun sysfs = CliRun.of("collector", "--sysfs-root", FakeSysfs.write(dir.resolve("ib"), 2).toString(),
                "--once", "--output", "json", "--node-id", "n1");
        assertThat(sysfs.exitCode()).as(sysfs.err()).isZero();
        assertThat(JSON.readTree(sysfs.out()).get("linkSamples").get(0).get("ports")).hasSize(2);

        final Path conf = dir.resolve("topology.conf");
        Files.writeString(conf, "SwitchName=leaf1 Nodes=gpu[01-02]\nSwitchName=spine1 Switches=leaf1\n");
        final CliRun topo = CliRun.of("collector", "--topology", "slurm:" + conf, "--output", "json");
        assertThat(topo.exitCode()).as(topo.err()).isZero();
        assertThat(JSON.readTree(topo.out()).get("nodes").get("gpu02").get("spine").asText()).isEqualTo("spine1");
    }

    @Test
    void wrongFlagsSayTheFix(@TempDir final Path dir) {
        final CliRun source = CliRun.of("collector", "--source", "smi", "--once");
        assertThat(source.exitCode()).isEqualTo(64);
        assertThat(source.err()).contains("use nvidia-smi, dcgm, none or simulated");
        final CliRun nothing = CliRun.of("collector", "--once");
        assertThat(nothing.exitCode()).isEqualTo(64);
        assertThat(nothing.err()).contains("--from-file FILE, --sysfs-root DIR or --topology KIND:FILE");
        final CliRun topo = CliRun.of("collector", "--topology", "ibnet:x", "--output", "json");
        assertThat(topo.err()).contains("ibnetdiscover:FILE");
        final CliRun missing = CliRun.of("collector", "--from-file", dir.resolve("none.csv").toString(), "--once");
        assertThat(missing.exitCode()).isEqualTo(64);
        assertThat(missing.err()).contains("--from-file");
        assertThat(CliRun.of("collector", "--help").exitCode()).isZero();
        assertThat(CliRun.of("bench", "collector", "--help").exitCode()).isZero();
    }
}
