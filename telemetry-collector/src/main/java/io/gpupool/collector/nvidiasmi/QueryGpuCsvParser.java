package io.gpupool.collector.nvidiasmi;

import io.gpupool.collector.gpu.GpuReading;
import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.gpu.MigMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code nvidia-smi --query-gpu} csv output: either {@code csv,noheader,nounits} in a known
 * field order, or plain {@code csv} whose header line names the fields (and their units). A header
 * line, when present, always wins over the given order, so one parser reads both forms.
 *
 * <p>Lines that are not a GPU row (driver errors printed to stdout, a row with the wrong number of
 * cells, a row without a uuid) are skipped with a warning; one bad cell nulls that field only.
 */
public final class QueryGpuCsvParser {
    private static final Logger LOG = LoggerFactory.getLogger(QueryGpuCsvParser.class);

    private final List<String> defaultFields;

    /** @param defaultFields the field order of headerless output (as passed to --query-gpu) */
    public QueryGpuCsvParser(final List<String> defaultFields) {
        this.defaultFields = defaultFields.stream().map(QueryGpuFields::canonical).toList();
    }

    public static QueryGpuCsvParser collectorOrder() {
        return new QueryGpuCsvParser(QueryGpuFields.COLLECTOR_ORDER);
    }

    public GpuSnapshot parse(final String label, final String text) {
        final List<String> warnings = new ArrayList<>();
        final Map<String, GpuReading> byUuid = new LinkedHashMap<>();
        List<String> fields = defaultFields;
        String driverVersion = null;
        int lineNo = 0;
        for (final String rawLine : text.split("\r?\n", -1)) {
            lineNo++;
            final String line = rawLine.replace("\uFEFF", "").strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            final List<String> cells = split(line);
            if (isHeader(cells)) {
                fields = cells.stream().map(QueryGpuFields::canonical).toList();
                continue;
            }
            if (cells.size() != fields.size()) {
                warn(warnings, label, lineNo, "skipped line that is not a GPU row (" + cells.size()
                        + " cells, expected " + fields.size() + "): " + abbreviate(line));
                continue;
            }
            final Map<String, String> row = new HashMap<>();
            for (int i = 0; i < fields.size(); i++) {
                row.putIfAbsent(fields.get(i), cells.get(i));
            }
            final String uuid = CellValues.text(row.get(QueryGpuFields.UUID));
            if (uuid == null) {
                warn(warnings, label, lineNo, "skipped GPU row without a uuid: " + abbreviate(line));
                continue;
            }
            final String driver = cellOrNull(row, QueryGpuFields.DRIVER_VERSION, CellValues::text, warnings, label, lineNo);
            if (driver != null) {
                driverVersion = driver;
            }
            byUuid.put(uuid, reading(uuid, row, warnings, label, lineNo));
        }
        return new GpuSnapshot(label, driverVersion, new ArrayList<>(byUuid.values()), warnings);
    }

    private static GpuReading reading(final String uuid, final Map<String, String> row,
            final List<String> warnings, final String label, final int lineNo) {
        final GpuReading.Builder b = GpuReading.builder(uuid);
        b.index(cellOrNull(row, QueryGpuFields.INDEX, CellValues::integer, warnings, label, lineNo));
        b.name(cellOrNull(row, QueryGpuFields.NAME, CellValues::text, warnings, label, lineNo));
        b.pciBusId(cellOrNull(row, QueryGpuFields.PCI_BUS_ID, CellValues::text, warnings, label, lineNo));
        b.utilizationGpuPct(cellOrNull(row, QueryGpuFields.UTILIZATION_GPU, CellValues::decimal, warnings, label, lineNo));
        b.utilizationMemoryPct(cellOrNull(row, QueryGpuFields.UTILIZATION_MEMORY, CellValues::decimal, warnings, label, lineNo));
        b.memoryTotalMiB(cellOrNull(row, QueryGpuFields.MEMORY_TOTAL, CellValues::whole, warnings, label, lineNo));
        b.memoryUsedMiB(cellOrNull(row, QueryGpuFields.MEMORY_USED, CellValues::whole, warnings, label, lineNo));
        b.temperatureC(cellOrNull(row, QueryGpuFields.TEMPERATURE_GPU, CellValues::decimal, warnings, label, lineNo));
        b.powerDrawW(cellOrNull(row, QueryGpuFields.POWER_DRAW, CellValues::decimal, warnings, label, lineNo));
        b.powerLimitW(cellOrNull(row, QueryGpuFields.POWER_LIMIT, CellValues::decimal, warnings, label, lineNo));
        b.smClockMHz(cellOrNull(row, QueryGpuFields.CLOCKS_SM, CellValues::integer, warnings, label, lineNo));
        b.eccUncorrectableVolatile(cellOrNull(row, QueryGpuFields.ECC_UNCORRECTED_VOLATILE, CellValues::whole, warnings, label, lineNo));
        b.remappedRowsPending(cellOrNull(row, QueryGpuFields.REMAPPED_ROWS_PENDING, CellValues::yesNo, warnings, label, lineNo));
        b.remappedRowsFailure(cellOrNull(row, QueryGpuFields.REMAPPED_ROWS_FAILURE, CellValues::yesNo, warnings, label, lineNo));
        b.retiredPagesPending(cellOrNull(row, QueryGpuFields.RETIRED_PAGES_PENDING, CellValues::yesNo, warnings, label, lineNo));
        b.migMode(MigMode.parse(CellValues.text(row.get(QueryGpuFields.MIG_MODE_CURRENT))));
        return b.build();
    }

    private static <T> T cellOrNull(final Map<String, String> row, final String field,
            final Function<String, T> parse, final List<String> warnings, final String label, final int lineNo) {
        if (!row.containsKey(field)) {
            return null;
        }
        try {
            return parse.apply(row.get(field));
        } catch (RuntimeException e) {
            warn(warnings, label, lineNo, field + ": " + e.getMessage() + " - left empty");
            return null;
        }
    }

    /** A header names the uuid field; a data row never holds the bare word "uuid". */
    private static boolean isHeader(final List<String> cells) {
        for (final String cell : cells) {
            if (QueryGpuFields.canonical(cell).equals(QueryGpuFields.UUID)) {
                return true;
            }
        }
        return false;
    }

    static List<String> split(final String line) {
        final List<String> cells = new ArrayList<>();
        for (final String cell : line.split(",", -1)) {
            cells.add(cell.trim());
        }
        return cells;
    }

    private static void warn(final List<String> warnings, final String label, final int lineNo, final String message) {
        final String text = label + " line " + lineNo + ": " + message;
        warnings.add(text);
        LOG.warn(text);
    }

    private static String abbreviate(final String line) {
        return line.length() <= 120 ? line : line.substring(0, 117) + "...";
    }
}
