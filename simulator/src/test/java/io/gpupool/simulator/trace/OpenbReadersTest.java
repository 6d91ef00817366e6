package io.gpupool.simulator.trace;

import io.gpupool.simulator.TestTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OpenbReadersTest {

    private static final String HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

    @TempDir
    Path dir;

    @Test
    void readsTheRealSliceWithItsSemantics() {
        final List<OpenbPod> pods = OpenbPodReader.read(TestTraces.path("openb_pod_list_slice.csv"));
        assertThat(pods).hasSize(360);
        final OpenbPod first = pods.get(0);
        assertThat(first.name()).isEqualTo("openb-pod-0000");
        assertThat(first.totalGpuMilli()).isEqualTo(1000);
        // A share of one GPU.
        final OpenbPod share = pods.stream().filter(p -> p.name().equals("openb-pod-0001")).findFirst().orElseThrow();
        assertThat(share.isGpuShare()).isTrue();
        assertThat(share.totalGpuMilli()).isEqualTo(460);
        // Multi-GPU pods are whole GPUs; CPU-only pods ask for none.
        assertThat(pods).filteredOn(p -> p.gpuCount() > 1).isNotEmpty()
                .allSatisfy(p -> assertThat(p.gpuMilliPerGpu()).isEqualTo(1000));
        assertThat(pods).filteredOn(p -> p.gpuCount() == 0).isNotEmpty()
                .allSatisfy(p -> assertThat(p.totalGpuMilli()).isZero());
    }

    @Test
    void readsGpuSpecModelLists() {
        final List<OpenbPod> pods = OpenbPodReader.read(TestTraces.path("openb_pod_list_gpuspec_synthetic.csv"));
        assertThat(pods.get(0).allowedGpuModels()).containsExactlyInAnyOrder("V100M16", "V100M32");
        assertThat(pods.get(3).allowedGpuModels()).isEmpty();
        assertThat(pods.get(4).allowedGpuModels()).isEqualTo(Set.of("G2", "G3"));
        assertThat(pods.get(2).totalGpuMilli()).isEqualTo(2000);
    }

    @Test
    void toleratesMissingOptionalColumnsAndEmptyGpuMilli() throws IOException {
        final Path file = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,0,\np1,1000,1024,1,300\n");
        final List<OpenbPod> pods = OpenbPodReader.read(file);
        assertThat(pods.get(0).totalGpuMilli()).isZero();
        assertThat(pods.get(1).allowedGpuModels()).isEmpty();
    }

    @Test
    void namesFileAndLineOfAMalformedPod() throws IOException {
        final Path file = write("bad.csv", HEADER + "p0,1000,1024,1,1000,,LS,Running,0,1,0\np1,abc,1024,1,1000,,LS,Running,0,1,0\n");
        assertThatThrownBy(() -> OpenbPodReader.read(file))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("bad.csv:3")
                .hasMessageContaining("cpu_milli");
    }

    @Test
    void rejectsImpossibleGpuMilliNegativeValuesMissingColumnsAndDuplicates() throws IOException {
        assertThatThrownBy(() -> OpenbPodReader.read(write("a.csv", HEADER + "p0,1,1,1,1500,,LS,R,0,1,0\n")))
                .hasMessageContaining("a.csv:2").hasMessageContaining("gpu_milli");
        assertThatThrownBy(() -> OpenbPodReader.read(write("b.csv", HEADER + "p0,-5,1,1,100,,LS,R,0,1,0\n")))
                .hasMessageContaining("b.csv:2").hasMessageContaining("negative");
        assertThatThrownBy(() -> OpenbPodReader.read(write("c.csv", "name,cpu_milli,memory_mib,num_gpu\np0,1,1,1\n")))
                .hasMessageContaining("c.csv:1").hasMessageContaining("gpu_milli");
        assertThatThrownBy(() -> OpenbPodReader.read(write("d.csv", HEADER + "p0,1,1,1,100,,LS,R,0,1,0\np0,1,1,1,100,,LS,R,0,1,0\n")))
                .hasMessageContaining("d.csv:3").hasMessageContaining("duplicate");
        assertThatThrownBy(() -> OpenbPodReader.read(write("e.csv", HEADER + "p0,1,1,1,100,,LS,R,0,1,0,extra,cells\n")))
                .hasMessageContaining("e.csv:2").hasMessageContaining("cells");
        assertThatThrownBy(() -> OpenbPodReader.read(write("f.csv", "")))
                .hasMessageContaining("f.csv:1").hasMessageContaining("empty");
    }

    @Test
    void readsNodesAndRejectsGpuNodesWithoutModel() throws IOException {
        final List<OpenbNode> nodes = OpenbNodeReader.read(TestTraces.path("openb_node_list_slice.csv"));
        assertThat(nodes).hasSize(41);
        assertThat(nodes).extracting(OpenbNode::gpuModel).contains("G2", "T4", "P100");
        final Path cpuOnly = write("cpu.csv", "sn,cpu_milli,memory_mib,gpu,model\nc0,32000,65536,0,\n");
        assertThat(OpenbNodeReader.read(cpuOnly).get(0).gpuMilliCapacity()).isZero();
        assertThatThrownBy(() -> OpenbNodeReader.read(write("n.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,2,\n")))
                .hasMessageContaining("n.csv:2").hasMessageContaining("no model");
        assertThatThrownBy(() -> OpenbNodeReader.read(write("m.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,x,2,T4\n")))
                .hasMessageContaining("m.csv:2").hasMessageContaining("memory_mib");
    }

    private Path write(final String name, final String content) throws IOException {
        final Path file = dir.resolve(name);
        Files.writeString(file, content);
        return file;
    }
}
