package io.gpupool.registry;

/** The subject has no such version (error_code 40402). */
public final class VersionNotFoundException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public VersionNotFoundException(final String message, final int httpStatus, final int errorCode) {
        super(message, httpStatus, errorCode);
    }
}
