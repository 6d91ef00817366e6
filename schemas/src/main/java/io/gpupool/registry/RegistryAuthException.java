package io.gpupool.registry;

/** The registry refused the credentials (HTTP 401 or 403): check basic.auth.user.info or bearer.auth.token. */
public final class RegistryAuthException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public RegistryAuthException(final String message, final int httpStatus, final int errorCode) {
        super(message, httpStatus, errorCode);
    }
}
