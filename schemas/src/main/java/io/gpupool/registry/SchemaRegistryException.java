package io.gpupool.registry;

/**
 * A Schema Registry request failed. Carries the HTTP status and the registry's error_code
 * (e.g. 40401) when the server sent one; -1 when not known.
 */
public class SchemaRegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int httpStatus;
    private final int errorCode;

    public SchemaRegistryException(final String message, final int httpStatus, final int errorCode) {
        super(message);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    public SchemaRegistryException(final String message, final Throwable cause) {
        super(message, cause);
        this.httpStatus = -1;
        this.errorCode = -1;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public int errorCode() {
        return errorCode;
    }
}
