package io.gpupool.scheduler.stream;

/** A telemetry record with a value that cannot be true; it is counted and dropped, never journaled. */
final class InvalidTelemetryException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidTelemetryException(final String message) {
        super(message);
    }
}
