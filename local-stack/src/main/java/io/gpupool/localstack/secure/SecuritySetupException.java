package io.gpupool.localstack.secure;

/** The secured stack could not be set up (certificates, secrets, credentials); the message says what to do. */
public final class SecuritySetupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SecuritySetupException(final String message) {
        super(message);
    }

    public SecuritySetupException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
