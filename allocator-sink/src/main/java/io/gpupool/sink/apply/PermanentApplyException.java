package io.gpupool.sink.apply;

/** A command that can never be applied as it is (no command to run, bad template): retrying is pointless. */
public final class PermanentApplyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PermanentApplyException(final String message) {
        super(message);
    }
}
