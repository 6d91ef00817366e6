package io.gpupool.collector.kernel;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Follows a growing log file (a saved dmesg, a kern.log): each poll returns the complete lines
 * appended since the last one. A line still being written is held back until its newline comes;
 * a file that shrank (rotated or truncated) is read again from its start.
 */
public final class FileTailSource implements LineSource {
    private final Path file;
    private long offset;
    private final StringBuilder partial = new StringBuilder();

    /** @param fromEnd true to skip what the file holds already (live), false to read it all (replay) */
    public FileTailSource(final Path file, final boolean fromEnd) {
        this.file = file;
        try {
            this.offset = fromEnd && Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<String> poll() {
        final List<String> lines = new ArrayList<>();
        if (!Files.exists(file)) {
            return lines;
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            final long length = in.length();
            if (length < offset) {
                offset = 0;
                partial.setLength(0);
            }
            if (length == offset) {
                return lines;
            }
            in.seek(offset);
            final byte[] bytes = new byte[(int) Math.min(length - offset, 8L << 20)];
            in.readFully(bytes);
            offset += bytes.length;
            partial.append(new String(bytes, StandardCharsets.UTF_8));
            int start = 0;
            for (int nl = partial.indexOf("\n"); nl >= 0; nl = partial.indexOf("\n", start)) {
                lines.add(partial.substring(start, nl));
                start = nl + 1;
            }
            partial.delete(0, start);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kernel log " + file, e);
        }
        return lines;
    }

    @Override
    public void close() {
        // nothing held open between polls
    }
}
