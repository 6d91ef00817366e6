package io.gpupool.registry;

/** The subject does not exist (error_code 40401). */
public final class SubjectNotFoundException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public SubjectNotFoundException(final String message, final int httpStatus, final int errorCode) {
        super(message, httpStatus, errorCode);
    }
}
