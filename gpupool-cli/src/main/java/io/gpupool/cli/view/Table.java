package io.gpupool.cli.view;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A table for people: columns padded to their widest cell, the last one not padded. Columns added with
 * {@link #wideColumn} show only with {@code -o wide}.
 */
public final class Table {
    private final List<String> headers = new ArrayList<>();
    private final List<Boolean> wideOnly = new ArrayList<>();
    private final List<String[]> rows = new ArrayList<>();

    public Table column(final String header) {
        headers.add(header);
        wideOnly.add(false);
        return this;
    }

    public Table wideColumn(final String header) {
        headers.add(header);
        wideOnly.add(true);
        return this;
    }

    /** One row, a cell per column in the order the columns were added (wide ones included). */
    public Table row(final String... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.size() + " columns");
        }
        rows.add(cells.clone());
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public void print(final PrintWriter out, final boolean wide) {
        final List<Integer> shown = new ArrayList<>();
        for (int c = 0; c < headers.size(); c++) {
            if (wide || !wideOnly.get(c)) {
                shown.add(c);
            }
        }
        final int[] width = new int[headers.size()];
        for (final int c : shown) {
            width[c] = headers.get(c).length();
            for (final String[] r : rows) {
                width[c] = Math.max(width[c], r[c].length());
            }
        }
        line(out, shown, width, headers.toArray(String[]::new));
        for (final String[] r : rows) {
            line(out, shown, width, r);
        }
        out.flush();
    }

    private static void line(final PrintWriter out, final List<Integer> shown, final int[] width, final String[] cells) {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < shown.size(); i++) {
            final int c = shown.get(i);
            b.append(cells[c]);
            if (i < shown.size() - 1) {
                b.append(" ".repeat(width[c] - cells[c].length() + 2));
            }
        }
        out.println(b.toString().stripTrailing());
    }
}
