package io.gpupool.simulator.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads a headed, comma-separated trace file row by row. Columns are found by name, so extra or
 * reordered columns in other variants of a trace are tolerated. Double-quoted cells are
 * unquoted; the traces we read do not need more of RFC 4180 than that.
 */
public final class CsvFile {

    private CsvFile() {
    }

    public static void forEachRow(final Path file, final List<String> requiredColumns, final Consumer<CsvRow> action) {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            final String header = reader.readLine();
            if (header == null) {
                throw new TraceFormatException(file, 1, "empty file, expected a header line");
            }
            final Map<String, Integer> columns = new HashMap<>();
            final List<String> names = split(stripBom(header));
            for (int i = 0; i < names.size(); i++) {
                columns.put(names.get(i).trim(), i);
            }
            for (String required : requiredColumns) {
                if (!columns.containsKey(required)) {
                    throw new TraceFormatException(file, 1, "header lacks column '" + required + "' (has " + names + ")");
                }
            }
            long lineNumber = 1;
            String line;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                final List<String> cells = split(line);
                if (cells.size() > names.size()) {
                    throw new TraceFormatException(file, lineNumber,
                            cells.size() + " cells but the header has " + names.size() + " columns");
                }
                action.accept(new CsvRow(file, lineNumber, columns, cells));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static String stripBom(final String header) {
        return header.startsWith("\uFEFF") ? header.substring(1) : header;
    }

    static List<String> split(final String line) {
        final List<String> cells = new ArrayList<>();
        final StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            final char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
