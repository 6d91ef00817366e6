package io.gpupool.cli.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small CSV file read by header name (trace files: no quoted commas). A byte-order mark and
 * blank lines are ignored; a missing column or a bad cell fails with the file, line and column.
 */
final class CsvTable {

    private final Path file;
    private final Map<String, Integer> columns = new HashMap<>();
    private final List<String[]> rows = new ArrayList<>();

    private CsvTable(final Path file) {
        this.file = file;
    }

    static CsvTable read(final Path file) throws IOException {
        final CsvTable t = new CsvTable(file);
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = r.readLine();
            if (header == null) {
                throw new IllegalArgumentException(file + " is empty; a trace needs a header line");
            }
            header = header.replace("\uFEFF", "");
            final String[] names = header.split(",", -1);
            for (int i = 0; i < names.length; i++) {
                t.columns.put(names[i].trim().toLowerCase(Locale.ROOT), i);
            }
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isBlank()) {
                    t.rows.add(line.split(",", -1));
                }
            }
        }
        return t;
    }

    boolean hasColumns(final String... names) {
        for (final String n : names) {
            if (!columns.containsKey(n)) {
                return false;
            }
        }
        return true;
    }

    int size() {
        return rows.size();
    }

    String cell(final int row, final String column) {
        final Integer c = columns.get(column);
        if (c == null) {
            throw new IllegalArgumentException(file + " has no column '" + column + "'");
        }
        final String[] r = rows.get(row);
        return c < r.length ? r[c].trim() : "";
    }

    double number(final int row, final String column) {
        final String s = cell(row, column);
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + " line " + (row + 2) + ": column " + column + " is '" + s
                    + "', not a number");
        }
    }

    IllegalArgumentException error(final int row, final String message) {
        return new IllegalArgumentException(file + " line " + (row + 2) + ": " + message);
    }
}
