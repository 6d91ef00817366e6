package io.gpupool.collector.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.collector.gpu.GpuReading;
import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.gpu.MigMode;
import org.junit.jupiter.api.Test;

/**
 * Headerless {@code csv,noheader,nounits} in the collector's own order. Rows built from the values
 * of the real H100 capture, plus the failure forms the driver prints on sick GPUs.
 */
class QueryGpuCsvParserTest {

    private static final String H100_ROW = "0, GPU-11111111-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, "
            + "00000000:9B:00.0, 100, 11, 81559, 19818, 59, 631.95, 700.00, 1980, 0, No, No, [N/A], Disabled";

    @Test
    void readsTheCollectorsOwnOrder() {
        final GpuSnapshot s = QueryGpuCsvParser.collectorOrder().parse("t", H100_ROW + "\n");
        final GpuReading g = s.gpus().get(0);
        assertThat(g.uuid()).isEqualTo("GPU-11111111-0000-0000-0000-000000000000");
        assertThat(g.pciBusId()).isEqualTo("00000000:9B:00.0");
        assertThat(g.utilizationGpuPct()).isEqualTo(100.0);
        assertThat(g.memoryUsedMiB()).isEqualTo(19818L);
        assertThat(g.powerDrawW()).isEqualTo(631.95);
        assertThat(g.smClockMHz()).isEqualTo(1980);
        assertThat(g.retiredPagesPending()).isNull();
        assertThat(g.migMode()).isEqualTo(MigMode.DISABLED);
        assertThat(s.warnings()).isEmpty();
    }

    @Test
    void everyNoValueFormIsNullNeverZero() {
        final String sick = "1, GPU-22222222-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, 00000000:BB:00.0, "
                + "[Unknown Error], N/A, , [Not Supported], [GPU requires reset], [N/A], "
                + "[Requested functionality has been deprecated], [Unknown Error], [N/A], [N/A], [Not Supported], N/A, [N/A]";
        final GpuReading g = QueryGpuCsvParser.collectorOrder().parse("t", sick).gpus().get(0);
        assertThat(g.index()).isEqualTo(1);
        assertThat(g.utilizationGpuPct()).isNull();
        assertThat(g.utilizationMemoryPct()).isNull();
        assertThat(g.memoryTotalMiB()).isNull();
        assertThat(g.memoryUsedMiB()).isNull();
        assertThat(g.temperatureC()).isNull();
        assertThat(g.powerDrawW()).isNull();
        assertThat(g.powerLimitW()).isNull();
        assertThat(g.smClockMHz()).isNull();
        assertThat(g.eccUncorrectableVolatile()).isNull();
        assertThat(g.remappedRowsPending()).isNull();
        assertThat(g.remappedRowsFailure()).isNull();
        assertThat(g.retiredPagesPending()).isNull();
        assertThat(g.migMode()).isNull();
    }

    @Test
    void strayErrorLinesAreSkippedWithAWarningAndGpusKeyedByUuid() {
        final String out = "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error\n"
                + H100_ROW + "\n"
                + "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver, retry later\n"
                + H100_ROW.replace("0, GPU-1111", "1, GPU-3333").replace("9B:00", "9C:00") + "\n";
        final GpuSnapshot s = QueryGpuCsvParser.collectorOrder().parse("t", out);
        assertThat(s.gpus()).extracting(GpuReading::uuid)
                .containsExactly("GPU-11111111-0000-0000-0000-000000000000", "GPU-33331111-0000-0000-0000-000000000000");
        assertThat(s.warnings()).hasSize(2).allMatch(w -> w.contains("not a GPU row"));
    }

    @Test
    void aGarbledCellNullsOnlyThatField() {
        final GpuSnapshot s = QueryGpuCsvParser.collectorOrder().parse("t", H100_ROW.replace("631.95", "lots"));
        assertThat(s.gpus().get(0).powerDrawW()).isNull();
        assertThat(s.gpus().get(0).temperatureC()).isEqualTo(59.0);
        assertThat(s.warnings()).singleElement().asString().contains("power.draw");
    }

    @Test
    void headerWithUnitsMapsByNameWhateverTheOrder() {
        final String csv = "\uFEFFuuid, memory.used [MiB], clocks.current.sm [MHz], index, utilization.gpu [%]\n"
                + "GPU-44444444-0000-0000-0000-000000000000, 1235 MiB, 2520 MHz, 3, 9 %\n";
        final GpuReading g = QueryGpuCsvParser.collectorOrder().parse("t", csv).gpus().get(0);
        assertThat(g.index()).isEqualTo(3);
        assertThat(g.memoryUsedMiB()).isEqualTo(1235L);
        assertThat(g.smClockMHz()).isEqualTo(2520);
        assertThat(g.utilizationGpuPct()).isEqualTo(9.0);
        assertThat(g.powerDrawW()).as("not asked for: null").isNull();
    }

    @Test
    void aRowWithoutUuidIsSkipped() {
        final GpuSnapshot s = QueryGpuCsvParser.collectorOrder().parse("t", H100_ROW.replace("GPU-11111111-0000-0000-0000-000000000000", "[N/A]"));
        assertThat(s.gpus()).isEmpty();
        assertThat(s.warnings()).singleElement().asString().contains("without a uuid");
    }
}
