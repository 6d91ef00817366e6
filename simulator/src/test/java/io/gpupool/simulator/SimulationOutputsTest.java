package io.gpupool.simulator;

import io.gpupool.simulator.fgd.ArrivalOrder;
import io.gpupool.simulator.philly.PhillyPolicy;
import io.gpupool.simulator.pool.EnginePool;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** Both protocols end to end on the slices: headline lines, CSV, summary and charts are written. */
class SimulationOutputsTest {

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    @TempDir
    Path out;

    @Test
    void fgdWritesHeadlinesCsvSummaryAndCharts() throws IOException {
        final List<String> lines = FgdSimulation.run(EnginePool::new, TestTraces.path("openb_pod_list_slice.csv"),
                TestTraces.path("openb_node_list_slice.csv"), List.of("best-fit", "fgd"), 2, ArrivalOrder.SHUFFLED, 2, Map.of(), out, QUIET);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).matches("policy=best-fit alloc_pct_at_100=\\d+\\.\\d alloc_pct_at_130=\\d+\\.\\d seeds=2");
        for (String file : List.of("fgd_curve.csv", "fgd_seeds.csv", "fgd_pods.csv", "fgd_allocation.png", "fgd_fragmentation.png", "fgd_stranded.png", "summary.md")) {
            assertThat(out.resolve(file)).isNotEmptyFile();
        }
        assertThat(Files.readAllLines(out.resolve("fgd_seeds.csv"))).hasSize(1 + 2 * 2);
        assertThat(Files.readString(out.resolve("summary.md"))).contains("| best-fit | 2 |").contains("93.1");
        assertThat(Files.readAllBytes(out.resolve("fgd_allocation.png"))).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    }

    @Test
    void phillyWritesHeadlinesCsvSummaryAndCharts() throws IOException {
        final List<String> lines = PhillySimulation.run(EnginePool::new, TestTraces.path("philly_slice.csv"),
                Instant.parse("2017-10-01T00:00:00Z"), Instant.parse("2017-12-01T00:00:00Z"), PhillySimulation.Sizing.helios(),
                List.of(PhillyPolicy.FIFO, PhillyPolicy.FULL), 2, Map.of(), out, QUIET);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("policy=fifo avg_jct_s=").contains(" avg_queue_s=");
        for (String file : List.of("philly_jobs.csv", "philly_utilisation.csv", "philly_virtual_clusters.csv",
                "philly_queueing_cdf.png", "philly_jct_cdf.png", "philly_utilisation.png", "summary.md")) {
            assertThat(out.resolve(file)).isNotEmptyFile();
        }
        assertThat(Files.readString(out.resolve("summary.md"))).contains("Helios").contains("86072 / 56531");
    }
}
