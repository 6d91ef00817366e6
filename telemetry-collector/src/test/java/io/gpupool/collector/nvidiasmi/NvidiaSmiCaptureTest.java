package io.gpupool.collector.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.collector.TestFiles;
import io.gpupool.collector.gpu.GpuReading;
import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.gpu.MigMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The query-gpu sections of real captures: plain csv with header and units, mapped by name. */
class NvidiaSmiCaptureTest {

    private static final String MASKED_UUID = "GPU-00000000-0000-0000-0000-000000000000";

    @Test
    void h100IdleThenUnderLoad() {
        final List<GpuSnapshot> snaps = NvidiaSmiOutput.read("h100",
                TestFiles.text("nvidia-smi/nvidia-h100-80gb-hbm3__590.48.01.txt"));
        assertThat(snaps).hasSize(2);
        final GpuReading idle = only(snaps.get(0));
        assertThat(idle.uuid()).isEqualTo(MASKED_UUID);
        assertThat(idle.index()).isZero();
        assertThat(idle.name()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(idle.pciBusId()).isEqualTo("00000000:00:09.0");
        assertThat(idle.memoryTotalMiB()).isEqualTo(81559L);
        assertThat(idle.memoryUsedMiB()).isEqualTo(0L);
        assertThat(idle.utilizationGpuPct()).isEqualTo(0.0);
        assertThat(idle.temperatureC()).isEqualTo(41.0);
        assertThat(idle.powerDrawW()).isEqualTo(69.85);
        assertThat(idle.powerLimitW()).isEqualTo(700.0);
        assertThat(idle.smClockMHz()).isEqualTo(345);
        assertThat(idle.eccUncorrectableVolatile()).isEqualTo(0L);
        assertThat(idle.remappedRowsPending()).isFalse();
        assertThat(idle.remappedRowsFailure()).isFalse();
        assertThat(idle.retiredPagesPending()).as("[N/A] is null, never false or 0").isNull();
        assertThat(idle.migMode()).isEqualTo(MigMode.DISABLED);
        assertThat(snaps.get(0).driverVersion()).isEqualTo("590.48.01");

        final GpuReading load = only(snaps.get(1));
        assertThat(load.utilizationGpuPct()).isEqualTo(100.0);
        assertThat(load.utilizationMemoryPct()).isEqualTo(11.0);
        assertThat(load.memoryUsedMiB()).isEqualTo(19818L);
        assertThat(load.powerDrawW()).isEqualTo(631.95);
        assertThat(load.smClockMHz()).isEqualTo(1980);
        assertThat(load.temperatureC()).isEqualTo(59.0);
    }

    @Test
    void h100WithMigReportsNoUtilisationAsNullNotZero() {
        final List<GpuSnapshot> snaps = NvidiaSmiOutput.read("mig",
                TestFiles.text("nvidia-smi/nvidia-h100-mig__590.48.01.txt"));
        assertThat(snaps).hasSize(2);
        final GpuReading load = only(snaps.get(1));
        assertThat(load.migMode()).isEqualTo(MigMode.ENABLED);
        assertThat(load.utilizationGpuPct()).isNull();
        assertThat(load.utilizationMemoryPct()).isNull();
        assertThat(load.remappedRowsPending()).isNull();
        assertThat(load.remappedRowsFailure()).isNull();
        assertThat(load.memoryUsedMiB()).isEqualTo(11125L);
        assertThat(load.powerDrawW()).isEqualTo(433.78);
        assertThat(only(snaps.get(0)).memoryUsedMiB()).isEqualTo(59L);
    }

    @Test
    void l40sHasNoMigAndItsOwnLimits() {
        final List<GpuSnapshot> snaps = NvidiaSmiOutput.read("l40s",
                TestFiles.text("nvidia-smi/nvidia-l40s__595.80.txt"));
        assertThat(snaps).hasSize(2);
        final GpuReading first = only(snaps.get(0));
        assertThat(first.name()).isEqualTo("NVIDIA L40S");
        assertThat(first.pciBusId()).isEqualTo("00000000:01:00.0");
        assertThat(first.memoryTotalMiB()).isEqualTo(46068L);
        assertThat(first.powerLimitW()).isEqualTo(350.0);
        assertThat(first.smClockMHz()).isEqualTo(2520);
        assertThat(first.migMode()).as("[N/A] mig mode").isNull();
        assertThat(first.temperatureC()).isEqualTo(63.0);
        final GpuReading second = only(snaps.get(1));
        assertThat(second.utilizationGpuPct()).isEqualTo(9.0);
        assertThat(second.memoryUsedMiB()).isEqualTo(1235L);
        assertThat(second.powerDrawW()).isEqualTo(110.23);
    }

    private static GpuReading only(final GpuSnapshot s) {
        assertThat(s.gpus()).hasSize(1);
        return s.gpus().get(0);
    }
}
