package io.gpupool.collector.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.collector.TestFiles;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopoMatrixParserTest {

    @Test
    void realH100CaptureWithAnsiUnderlinedHeader() {
        final String section = CaptureSections.split(TestFiles.text("nvidia-smi/nvidia-h100-80gb-hbm3__590.48.01.txt"))
                .stream().filter(s -> s.command().equals("nvidia-smi topo -m")).findFirst().orElseThrow().body();
        assertThat(section).contains("\u001B[4m");
        final TopoMatrix m = TopoMatrixParser.parse(section);
        assertThat(m.devices()).containsExactly("GPU0");
        assertThat(m.link("GPU0", "GPU0")).isEqualTo("X");
        assertThat(m.cpuAffinity()).containsEntry("GPU0", "0-19");
        assertThat(m.numaNode()).containsEntry("GPU0", 0);
        assertThat(m.nvlinkGroups()).isEmpty();
        assertThat(m.nearestNics()).isEmpty();
    }

    @Test
    void realL40sCapture() {
        final String section = CaptureSections.split(TestFiles.text("nvidia-smi/nvidia-l40s__595.80.txt"))
                .stream().filter(s -> s.command().equals("nvidia-smi topo -m")).findFirst().orElseThrow().body();
        assertThat(TopoMatrixParser.parse(section).cpuAffinity()).containsEntry("GPU0", "0-7");
    }

    /** The layout of a DGX-class node (newer drivers: NIC# columns and a NIC legend). */
    private static final String EIGHT_WAY = "\t\u001B[4mGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tNIC2\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u001B[0m\n"
            + "GPU0\t X \tNV18\tNV18\tNV18\tPIX\tSYS\tSYS\t0-55,112-167\t0\t\tN/A\n"
            + "GPU1\tNV18\t X \tNV18\tNV18\tPXB\tSYS\tSYS\t0-55,112-167\t0\t\tN/A\n"
            + "GPU2\tNV18\tNV18\t X \tNV18\tSYS\tPIX\tNODE\t56-111,168-223\t1\t\tN/A\n"
            + "GPU3\tNV18\tNV18\tNV18\t X \tSYS\tNODE\tPIX\t56-111,168-223\t1\t\tN/A\n"
            + "NIC0\tPIX\tPXB\tSYS\tSYS\t X \tSYS\tSYS\n"
            + "NIC1\tSYS\tSYS\tPIX\tNODE\tSYS\t X \tNODE\n"
            + "NIC2\tSYS\tSYS\tNODE\tPIX\tSYS\tNODE\t X \n"
            + "\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n\n"
            + "NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n  NIC2: mlx5_bond_0\n";

    @Test
    void nvlinkGroupsPcieSwitchesAndNicAffinity() {
        final TopoMatrix m = TopoMatrixParser.parse(EIGHT_WAY);
        assertThat(m.gpus()).containsExactly("GPU0", "GPU1", "GPU2", "GPU3");
        assertThat(m.nics()).containsExactly("NIC0", "NIC1", "NIC2");
        assertThat(m.nicName("NIC2")).isEqualTo("mlx5_bond_0");
        assertThat(m.nvlinkGroups()).containsOnly(Map.entry("GPU0", "nvlink-GPU0"), Map.entry("GPU1", "nvlink-GPU0"),
                Map.entry("GPU2", "nvlink-GPU0"), Map.entry("GPU3", "nvlink-GPU0"));
        final Map<String, String> pcie = m.pcieSwitchGroups();
        assertThat(pcie.get("GPU0")).isEqualTo(pcie.get("GPU1")).isEqualTo(pcie.get("NIC0"));
        assertThat(pcie.get("GPU2")).isEqualTo(pcie.get("NIC1")).isNotEqualTo(pcie.get("GPU0"));
        assertThat(pcie.get("GPU3")).isEqualTo(pcie.get("NIC2"));
        assertThat(m.nearestNics()).containsEntry("GPU0", List.of("mlx5_0")).containsEntry("GPU1", List.of("mlx5_0"))
                .containsEntry("GPU2", List.of("mlx5_1")).containsEntry("GPU3", List.of("mlx5_bond_0"));
        assertThat(m.cpuAffinity()).containsEntry("GPU2", "56-111,168-223");
        assertThat(m.numaNode()).containsEntry("GPU3", 1);
    }

    @Test
    void olderDriversNameNicColumnsByDevice() {
        final String old = "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\tNUMA Affinity\n"
                + "GPU0\t X \tNV4\tPHB\t0-15\t0\n"
                + "GPU1\tNV4\t X \tSYS\t16-31\t1\n"
                + "mlx5_0\tPHB\tSYS\t X \n";
        final TopoMatrix m = TopoMatrixParser.parse(old);
        assertThat(m.nics()).containsExactly("mlx5_0");
        assertThat(m.nearestNics()).containsEntry("GPU0", List.of("mlx5_0")).containsEntry("GPU1", List.of("mlx5_0"));
        assertThat(m.nvlinkGroups()).containsEntry("GPU1", "nvlink-GPU0");
        assertThat(m.pcieSwitchGroups()).as("PHB crosses the host bridge: no shared switch").isEmpty();
    }

    @Test
    void spacesInsteadOfTabs() {
        final TopoMatrix m = TopoMatrixParser.parse(EIGHT_WAY.replace("\t", "    "));
        assertThat(m.gpus()).hasSize(4);
        assertThat(m.nearestNics()).containsEntry("GPU3", List.of("mlx5_bond_0"));
        assertThat(m.cpuAffinity()).containsEntry("GPU2", "56-111,168-223");
        assertThat(m.numaNode()).containsEntry("GPU2", 1);
    }

    @Test
    void textWithoutMatrixIsAClearError() {
        assertThatThrownBy(() -> TopoMatrixParser.parse("NVIDIA-SMI has failed"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GPU0");
    }
}
