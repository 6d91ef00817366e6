package io.gpupool.simulator.trace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Reads an Alibaba 2023 {@code openb_node_list_*.csv}: sn, cpu_milli, memory_mib, gpu, model. */
public final class OpenbNodeReader {

    private static final List<String> REQUIRED = List.of("sn", "cpu_milli", "memory_mib", "gpu");

    private OpenbNodeReader() {
    }

    public static List<OpenbNode> read(final Path file) {
        final List<OpenbNode> nodes = new ArrayList<>();
        final Set<String> names = new HashSet<>();
        CsvFile.forEachRow(file, REQUIRED, row -> {
            final String name = row.requiredText("sn");
            if (!names.add(name)) {
                throw row.error("duplicate node '" + name + "'");
            }
            final long cpu = row.requiredLong("cpu_milli");
            final long memory = row.requiredLong("memory_mib");
            final long gpus = row.requiredLong("gpu");
            if (cpu < 0 || memory < 0 || gpus < 0 || gpus > 1024) {
                throw row.error("cpu_milli, memory_mib and gpu must be non-negative (gpu at most 1024)");
            }
            final String model = row.optionalText("model");
            if (gpus > 0 && model.isEmpty()) {
                throw row.error("node with " + gpus + " GPUs has no model");
            }
            nodes.add(new OpenbNode(name, cpu, memory, (int) gpus, model));
        });
        if (nodes.isEmpty()) {
            throw new TraceFormatException(file, "no nodes");
        }
        return List.copyOf(nodes);
    }

}
