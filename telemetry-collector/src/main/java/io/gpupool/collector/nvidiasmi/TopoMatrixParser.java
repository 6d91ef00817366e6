package io.gpupool.collector.nvidiasmi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code nvidia-smi topo -m}. The header row is underlined with ANSI escapes on a terminal,
 * NIC columns are labelled NIC0.. with a legend (newer drivers) or by device name (mlx5_0, older
 * ones), and trailing columns (CPU/NUMA affinity, GPU NUMA ID) vary by driver: only the matrix
 * columns are positional, the rest is read after them.
 */
public final class TopoMatrixParser {
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z]");
    private static final Pattern DEVICE = Pattern.compile("GPU\\d+|NIC\\d+|mlx\\d+_\\w+|[a-z]+\\d*_\\w+");
    private static final Pattern NIC_LEGEND = Pattern.compile("^\\s*(NIC\\d+)\\s*:\\s*(\\S+)\\s*$");

    private TopoMatrixParser() {
    }

    public static String stripAnsi(final String text) {
        return ANSI.matcher(text).replaceAll("");
    }

    public static TopoMatrix parse(final String text) {
        final String[] lines = stripAnsi(text).split("\r?\n");
        List<String> devices = null;
        final Map<String, Map<String, String>> links = new LinkedHashMap<>();
        final Map<String, String> nicNames = new LinkedHashMap<>();
        final Map<String, String> cpu = new LinkedHashMap<>();
        final Map<String, Integer> numa = new LinkedHashMap<>();
        boolean inLegend = false;
        for (final String line : lines) {
            final Matcher legend = NIC_LEGEND.matcher(line);
            if (legend.matches()) {
                nicNames.put(legend.group(1), legend.group(2));
                continue;
            }
            if (line.trim().startsWith("Legend")) {
                inLegend = true;
            }
            if (inLegend || line.isBlank() || line.trim().startsWith("#")) {
                continue;
            }
            final List<String> cells = cells(line);
            if (devices == null) {
                if (!cells.isEmpty() && cells.get(0).equals("GPU0")
                        && (line.startsWith("\t") || line.startsWith(" "))) {
                    devices = new ArrayList<>();
                    for (final String cell : cells) {
                        if (!DEVICE.matcher(cell).matches()) {
                            break;
                        }
                        devices.add(cell);
                    }
                }
                continue;
            }
            final String row = cells.isEmpty() ? "" : cells.get(0);
            if (!devices.contains(row)) {
                continue;
            }
            final List<String> rowCells = rowCells(line);
            final Map<String, String> rowLinks = new LinkedHashMap<>();
            for (int i = 0; i < devices.size() && i + 1 < rowCells.size(); i++) {
                rowLinks.put(devices.get(i), rowCells.get(i + 1).trim());
            }
            links.put(row, rowLinks);
            if (TopoMatrix.isGpu(row)) {
                final int after = devices.size() + 1;
                if (rowCells.size() > after) {
                    cpu.put(row, NoValue.is(rowCells.get(after)) ? null : rowCells.get(after).trim());
                }
                if (rowCells.size() > after + 1) {
                    final String n = rowCells.get(after + 1).trim();
                    numa.put(row, n.matches("\\d+") ? Integer.valueOf(n) : null);
                }
            }
        }
        if (devices == null) {
            throw new IllegalArgumentException("no 'nvidia-smi topo -m' matrix found (expected a header row starting with GPU0)");
        }
        return new TopoMatrix(List.copyOf(devices), links, nicNames, cpu, numa);
    }

    /** Non-empty cells, for finding labels. */
    private static List<String> cells(final String line) {
        final List<String> out = new ArrayList<>();
        for (final String c : separated(line)) {
            if (!c.isBlank()) {
                out.add(c.trim());
            }
        }
        return out;
    }

    /** Positional cells of a data row: tab separated, with " X " standing for self. */
    private static List<String> rowCells(final String line) {
        return List.of(separated(line));
    }

    /**
     * nvidia-smi separates cells with tabs; output that went through a terminal or a copy-paste may
     * have spaces instead, and then two or more spaces separate cells ("CPU Affinity" keeps its one).
     */
    private static String[] separated(final String line) {
        return line.indexOf('\t') >= 0 ? line.split("\t", -1) : line.trim().split("\\s{2,}", -1);
    }
}
