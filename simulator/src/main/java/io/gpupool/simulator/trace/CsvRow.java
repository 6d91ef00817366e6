package io.gpupool.simulator.trace;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One data row of a headed CSV file, with typed accessors that fail with the file and line
 * named, so a malformed trace tells the user exactly where to look.
 */
public final class CsvRow {

    private final Path file;
    private final long line;
    private final Map<String, Integer> columns;
    private final List<String> cells;

    CsvRow(final Path file, final long line, final Map<String, Integer> columns, final List<String> cells) {
        this.file = file;
        this.line = line;
        this.columns = columns;
        this.cells = cells;
    }

    public long line() {
        return line;
    }

    /** The trimmed cell, or "" when the row is shorter than the header (trailing empty cells). */
    public String text(final String column) {
        final Integer index = columns.get(column);
        if (index == null) {
            throw new TraceFormatException(file, "missing column '" + column + "'");
        }
        return index < cells.size() ? cells.get(index).trim() : "";
    }

    /** The trimmed cell, or "" when the file has no such column (optional in some trace variants). */
    public String optionalText(final String column) {
        final Integer index = columns.get(column);
        return index == null || index >= cells.size() ? "" : cells.get(index).trim();
    }

    public String requiredText(final String column) {
        final String value = text(column);
        if (value.isEmpty()) {
            throw error("empty " + column);
        }
        return value;
    }

    public long requiredLong(final String column) {
        final String value = requiredText(column);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException notAnInteger) {
            // Some exports write integers as "12.0"; accept those, nothing fractional.
            try {
                final double asDouble = Double.parseDouble(value);
                if (asDouble == Math.rint(asDouble) && !Double.isInfinite(asDouble)) {
                    return (long) asDouble;
                }
            } catch (NumberFormatException ignored) {
                // reported below
            }
            throw error(column + " is not an integer: '" + value + "'");
        }
    }

    public double requiredDouble(final String column) {
        final String value = requiredText(column);
        try {
            final double parsed = Double.parseDouble(value);
            if (Double.isNaN(parsed) || Double.isInfinite(parsed)) {
                throw error(column + " is not a finite number: '" + value + "'");
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw error(column + " is not a number: '" + value + "'");
        }
    }

    public TraceFormatException error(final String problem) {
        return new TraceFormatException(file, line, problem);
    }
}
