package io.gpupool.simulator.trace;

import java.nio.file.Path;

/** A trace file that cannot be read as its format says; the message names the file and the line. */
public final class TraceFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public TraceFormatException(final Path file, final long line, final String problem) {
        super(file + ":" + line + ": " + problem);
    }

    public TraceFormatException(final Path file, final String problem) {
        super(file + ": " + problem);
    }
}
