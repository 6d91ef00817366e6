package io.gpupool.registry;

/** The registry could not parse the schema (error_code 42201) or refused it as invalid (HTTP 422). */
public final class InvalidSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public InvalidSchemaException(final String message, final int httpStatus, final int errorCode) {
        super(message, httpStatus, errorCode);
    }
}
