package io.gpupool.collector.dcgm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.collector.TestFiles;
import io.gpupool.collector.gpu.GpuReading;
import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.gpu.MigMode;
import java.util.List;
import org.junit.jupiter.api.Test;

class DcgmScrapeMapperTest {

    @Test
    void realTeslaT4Scrape() {
        final GpuSnapshot s = DcgmScrapeMapper.map("t4", TestFiles.text("dcgm/metrics-tesla-t4.txt"));
        assertThat(s.gpus()).extracting(GpuReading::uuid).containsExactly(
                "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e", "GPU-9ef1b6d0-3643-5dd7-b823-c0ec20dcf2d5", "GPU-abc");
        final GpuReading t4 = s.gpus().get(0);
        assertThat(t4.index()).isZero();
        assertThat(t4.name()).isEqualTo("Tesla T4");
        assertThat(t4.smClockMHz()).isEqualTo(300);
        assertThat(t4.temperatureC()).isEqualTo(25.0);
        assertThat(t4.powerDrawW()).isEqualTo(8.969);
        assertThat(t4.utilizationGpuPct()).isEqualTo(0.0);
        assertThat(t4.utilizationMemoryPct()).isEqualTo(0.0);
        assertThat(t4.memoryUsedMiB()).isEqualTo(0L);
        assertThat(t4.memoryTotalMiB()).as("FB_USED + FB_FREE").isEqualTo(15109L);
        assertThat(t4.xidCodes()).as("XID_ERRORS 0 = none").isEmpty();
        assertThat(t4.powerLimitW()).as("not in this series set").isNull();
        assertThat(s.driverVersion()).isEqualTo("460.106.00");

        final GpuReading second = s.gpus().get(1);
        assertThat(second.powerLimitW()).isEqualTo(70.0);
        assertThat(second.memoryTotalMiB()).as("FB_TOTAL").isEqualTo(15109L);
        assertThat(second.utilizationGpuPct()).as("no such series for this GPU: null, not 0").isNull();
        assertThat(second.xidCodes()).isNull();
        assertThat(s.warnings()).anyMatch(w -> w.contains("9 DCGM series without a UUID"));
    }

    @Test
    void blankSentinelsNewHostnameLabelAndMigInstances() {
        final String scrape = "# HELP DCGM_FI_DEV_GPU_UTIL\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
                + "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-1\",modelName=\"NVIDIA H100 80GB HBM3\",hostname=\"n17\"} 9223372036854775794\n"
                + "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-1\",hostname=\"n17\"} 9223372036854775792\n"
                + "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-1\",hostname=\"n17\"} 412.5 1700000000000\n"
                + "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-1\",hostname=\"n17\",err_msg=\"Graphics Engine \\\"Exception\\\"\"} 79\n"
                + "DCGM_FI_DEV_ROW_REMAP_FAILURE{gpu=\"1\",UUID=\"GPU-1\"} 1\n"
                + "DCGM_FI_DEV_FB_USED{gpu=\"2\",UUID=\"GPU-2\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"3\"} 500\n"
                + "this line is garbage {\n"
                + "DCGM_FI_DEV_COUNT 2\n";
        final GpuSnapshot s = DcgmScrapeMapper.map("x", scrape);
        final GpuReading g1 = s.gpus().get(0);
        assertThat(g1.utilizationGpuPct()).isNull();
        assertThat(g1.temperatureC()).isNull();
        assertThat(g1.powerDrawW()).isEqualTo(412.5);
        assertThat(g1.xidCodes()).isEqualTo(List.of(79));
        assertThat(g1.remappedRowsFailure()).isTrue();
        final GpuReading g2 = s.gpus().get(1);
        assertThat(g2.migMode()).isEqualTo(MigMode.ENABLED);
        assertThat(g2.memoryUsedMiB()).as("the only instance's use").isEqualTo(500L);
        assertThat(s.warnings()).anyMatch(w -> w.contains("1 unreadable"));
    }

    @Test
    void migInstancesGiveDeviceFieldsAndSummedMemory() {
        final String scrape = "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-m\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"} 1000\n"
                + "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-m\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\"} 2500\n"
                + "DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-m\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"} 39000\n"
                + "DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-m\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\"} 37500\n"
                + "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-m\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"} 44\n"
                + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-m\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"} 77\n"
                + "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-m\"} 250.5\n";
        final GpuReading g = DcgmScrapeMapper.map("mig", scrape).gpus().get(0);
        assertThat(g.migMode()).isEqualTo(MigMode.ENABLED);
        assertThat(g.memoryUsedMiB()).isEqualTo(3500L);
        assertThat(g.memoryTotalMiB()).isEqualTo(80000L);
        assertThat(g.temperatureC()).isEqualTo(44.0);
        assertThat(g.powerDrawW()).isEqualTo(250.5);
        assertThat(g.utilizationGpuPct()).as("per-instance utilisation is not the GPU's").isNull();
    }

    @Test
    void labelLookupIgnoresCase() {
        final PromSample a = PrometheusTextParser.parseLine("M{Hostname=\"old\"} 1");
        final PromSample b = PrometheusTextParser.parseLine("M{hostname=\"new\"} 1");
        assertThat(a.label("hostname")).isEqualTo("old");
        assertThat(b.label("Hostname")).isEqualTo("new");
        assertThat(PrometheusTextParser.parseLine("M NaN").value()).isNull();
        assertThat(PrometheusTextParser.parseLine("M 1.40737488355328e+14").value()).as("DCGM_FP64_BLANK").isNull();
        assertThat(PrometheusTextParser.parseLine("M 140737488355330").value()).as("FP64 not supported").isNull();
        assertThat(PrometheusTextParser.parseLine("M 9223372036854775807").value()).isNull();
        assertThat(PrometheusTextParser.parseLine("M 9223372036854775000").value()).as("large but real").isNotNull();
    }
}
