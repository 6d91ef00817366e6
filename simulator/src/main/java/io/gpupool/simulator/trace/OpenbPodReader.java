package io.gpupool.simulator.trace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads every variant of the Alibaba 2023 {@code openb_pod_list_*.csv} (default, gpushare,
 * multigpu, gpuspec, cpu mixes): same columns, different mixes. Tolerates an empty gpu_spec,
 * CPU-only pods (num_gpu 0, gpu_milli 0 or empty) and absent timing columns.
 */
public final class OpenbPodReader {

    private static final List<String> REQUIRED = List.of("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli");

    private OpenbPodReader() {
    }

    public static List<OpenbPod> read(final Path file) {
        final List<OpenbPod> pods = new ArrayList<>();
        final Set<String> names = new LinkedHashSet<>();
        CsvFile.forEachRow(file, REQUIRED, row -> {
            final OpenbPod pod = parse(row);
            if (!names.add(pod.name())) {
                throw row.error("duplicate pod name '" + pod.name() + "'");
            }
            pods.add(pod);
        });
        if (pods.isEmpty()) {
            throw new TraceFormatException(file, "no pods");
        }
        return List.copyOf(pods);
    }

    private static OpenbPod parse(final CsvRow row) {
        final String name = row.requiredText("name");
        final long cpuMilli = nonNegative(row, "cpu_milli", row.requiredLong("cpu_milli"));
        final long memoryMib = nonNegative(row, "memory_mib", row.requiredLong("memory_mib"));
        final long numGpu = nonNegative(row, "num_gpu", row.requiredLong("num_gpu"));
        final long gpuMilli = row.optionalText("gpu_milli").isEmpty() ? 0 : nonNegative(row, "gpu_milli", row.requiredLong("gpu_milli"));
        if (gpuMilli > OpenbPod.WHOLE_GPU_MILLI) {
            throw row.error("gpu_milli " + gpuMilli + " exceeds one GPU (1000)");
        }
        if (numGpu > Integer.MAX_VALUE) {
            throw row.error("num_gpu out of range: " + numGpu);
        }
        final int gpuCount;
        final int milliPerGpu;
        if (numGpu == 0 || gpuMilli == 0) {
            // CPU-only pod; a gpu_milli without a GPU (or a GPU with no milli) asks for no GPU time.
            gpuCount = 0;
            milliPerGpu = 0;
        } else if (numGpu == 1) {
            gpuCount = 1;
            milliPerGpu = (int) gpuMilli;
        } else {
            // More than one GPU is always whole GPUs in this trace's semantics.
            gpuCount = (int) numGpu;
            milliPerGpu = OpenbPod.WHOLE_GPU_MILLI;
        }
        final long creationTime = optionalLong(row, "creation_time");
        return new OpenbPod(name, cpuMilli, memoryMib, gpuCount, milliPerGpu, gpuSpec(row.optionalText("gpu_spec")), creationTime);
    }

    private static Set<String> gpuSpec(final String cell) {
        if (cell.isEmpty()) {
            return Set.of();
        }
        final Set<String> models = new LinkedHashSet<>();
        Arrays.stream(cell.split("\\|")).map(String::trim).filter(m -> !m.isEmpty()).forEach(models::add);
        return models;
    }

    private static long optionalLong(final CsvRow row, final String column) {
        return row.optionalText(column).isEmpty() ? 0 : row.requiredLong(column);
    }

    private static long nonNegative(final CsvRow row, final String column, final long value) {
        if (value < 0) {
            throw row.error(column + " is negative: " + value);
        }
        return value;
    }
}
