package io.gpupool.registry;

/** No schema with that id, or the schema is not registered under that subject (error_code 40403). */
public final class SchemaNotFoundException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public SchemaNotFoundException(final String message, final int httpStatus, final int errorCode) {
        super(message, httpStatus, errorCode);
    }
}
