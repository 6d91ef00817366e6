package io.gpupool.collector.nvidiasmi;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code --query-gpu} fields the collector asks for, in its own order, and the names nvidia-smi
 * prints for them in a csv header. nvidia-smi answers a short alias ({@code clocks.sm}) with its
 * long name ({@code clocks.current.sm [MHz]}), so both spellings must land on the same field.
 */
public final class QueryGpuFields {
    public static final String INDEX = "index";
    public static final String UUID = "uuid";
    public static final String NAME = "name";
    public static final String PCI_BUS_ID = "pci.bus_id";
    public static final String DRIVER_VERSION = "driver_version";
    public static final String UTILIZATION_GPU = "utilization.gpu";
    public static final String UTILIZATION_MEMORY = "utilization.memory";
    public static final String MEMORY_TOTAL = "memory.total";
    public static final String MEMORY_USED = "memory.used";
    public static final String TEMPERATURE_GPU = "temperature.gpu";
    public static final String POWER_DRAW = "power.draw";
    public static final String POWER_LIMIT = "power.limit";
    public static final String CLOCKS_SM = "clocks.sm";
    public static final String ECC_UNCORRECTED_VOLATILE = "ecc.errors.uncorrected.volatile.total";
    public static final String REMAPPED_ROWS_PENDING = "remapped_rows.pending";
    public static final String REMAPPED_ROWS_FAILURE = "remapped_rows.failure";
    public static final String RETIRED_PAGES_PENDING = "retired_pages.pending";
    public static final String MIG_MODE_CURRENT = "mig.mode.current";

    /** What {@code gpupool collector} passes to {@code --query-gpu}, in this order. */
    public static final List<String> COLLECTOR_ORDER = List.of(
            INDEX, UUID, NAME, PCI_BUS_ID, UTILIZATION_GPU, UTILIZATION_MEMORY, MEMORY_TOTAL, MEMORY_USED,
            TEMPERATURE_GPU, POWER_DRAW, POWER_LIMIT, CLOCKS_SM, ECC_UNCORRECTED_VOLATILE,
            REMAPPED_ROWS_PENDING, REMAPPED_ROWS_FAILURE, RETIRED_PAGES_PENDING, MIG_MODE_CURRENT);

    private static final Map<String, String> LONG_TO_SHORT = Map.of(
            "clocks.current.sm", CLOCKS_SM,
            "gpu_uuid", UUID,
            "gpu_name", NAME,
            "gpu_bus_id", PCI_BUS_ID,
            "pci.bus_id", PCI_BUS_ID,
            "temperature.gpu", TEMPERATURE_GPU,
            "power.draw", POWER_DRAW);

    private QueryGpuFields() {
    }

    /** The {@code --query-gpu=} argument. */
    public static String queryArgument() {
        return String.join(",", COLLECTOR_ORDER);
    }

    /**
     * The field a header cell names: units in brackets dropped ("memory.used [MiB]"), long names
     * folded to the collector's names.
     */
    public static String canonical(final String headerCell) {
        String name = headerCell.trim();
        final int bracket = name.indexOf('[');
        if (bracket >= 0) {
            name = name.substring(0, bracket).trim();
        }
        name = name.toLowerCase(Locale.ROOT);
        return LONG_TO_SHORT.getOrDefault(name, name);
    }
}
