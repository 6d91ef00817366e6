package io.gpupool.simulator.report;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** A small CSV writer: header first, then rows; numbers printed with a dot whatever the locale. */
public final class CsvOut implements AutoCloseable {

    private final Path file;
    private final BufferedWriter writer;

    public CsvOut(final Path file, final String... header) {
        this.file = file;
        try {
            this.writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        row((Object[]) header);
    }

    public void row(final Object... cells) {
        final StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                line.append(',');
            }
            line.append(format(cells[i]));
        }
        try {
            writer.write(line.append('\n').toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static String format(final Object cell) {
        if (cell == null) {
            return "";
        }
        if (cell instanceof Double d) {
            return String.format(Locale.ROOT, "%.4f", d);
        }
        final String text = cell.toString();
        return text.contains(",") || text.contains("\"") ? '"' + text.replace("\"", "\"\"") + '"' : text;
    }

    @Override
    public void close() {
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
