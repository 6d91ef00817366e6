package io.gpupool.simulator.philly;

import io.gpupool.simulator.trace.PhillyJob;
import io.gpupool.simulator.trace.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VirtualClusterSizesTest {

    @TempDir
    Path dir;

    @Test
    void usesTheTableAndSizesUnknownClustersFromDemand() {
        final List<PhillyJob> jobs = List.of(
                new PhillyJob("a", 0, 100, 1, "6214e9"),
                new PhillyJob("b", 0, 86_400, 20, "new-vc"), // 20 GPUs busy for the whole window
                new PhillyJob("c", 86_400, 10, 1, "new-vc"),
                new PhillyJob("d", 0, 10, 64, "tiny-in-table"));
        final Map<String, VirtualClusterSizes.Sizing> sizes = VirtualClusterSizes.choose(
                jobs, Map.of("6214e9", 64, "tiny-in-table", 2), "Helios");
        assertThat(sizes.get("6214e9")).isEqualTo(new VirtualClusterSizes.Sizing(64, "Helios"));
        // 20 GPUs at 70% load -> 29 GPUs -> 4 nodes, a power of two.
        assertThat(sizes.get("new-vc").nodes()).isEqualTo(4);
        assertThat(sizes.get("new-vc").source()).isEqualTo("demand");
        // A table entry too small for the VC's largest job is overridden, and says so.
        assertThat(sizes.get("tiny-in-table").nodes()).isGreaterThanOrEqualTo(8);
        assertThat(sizes.get("tiny-in-table").source()).contains("too small");
        assertThat(VirtualClusterSizes.heliosPhilly()).hasSize(11).containsEntry("ee9e8c", 64);
    }

    @Test
    void readsAndValidatesASizeTable() throws IOException {
        final Path good = Files.writeString(dir.resolve("vc.csv"), "vc,node num\nx,4\ny,2\n");
        assertThat(VirtualClusterSizes.read(good)).containsEntry("x", 4).containsEntry("y", 2);
        final Path bad = Files.writeString(dir.resolve("bad.csv"), "vc,node num\nx,4\ny,0\n");
        assertThatThrownBy(() -> VirtualClusterSizes.read(bad)).isInstanceOf(TraceFormatException.class).hasMessageContaining("bad.csv:3");
    }
}
