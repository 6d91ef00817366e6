package io.gpupool.registry;

/** The schema is not compatible with the subject's existing versions under its compatibility level (HTTP 409; error_code 409 on older servers, 40901 on newer). */
public final class IncompatibleSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public IncompatibleSchemaException(final String message, final int httpStatus, final int errorCode) {
        super(message, httpStatus, errorCode);
    }
}
