package io.gpupool.registry;

/**
 * The Schema Registry error codes (Confluent's, also used by Apicurio ccompat, Karapace and
 * Redpanda) and their mapping to typed exceptions. The local registry server answers with the same codes.
 */
public final class RegistryErrors {
    public static final int SUBJECT_NOT_FOUND = 40401;
    public static final int VERSION_NOT_FOUND = 40402;
    public static final int SCHEMA_NOT_FOUND = 40403;
    public static final int SUBJECT_SOFT_DELETED = 40404;
    public static final int SUBJECT_NOT_SOFT_DELETED = 40405;
    public static final int VERSION_SOFT_DELETED = 40406;
    public static final int VERSION_NOT_SOFT_DELETED = 40407;
    public static final int SUBJECT_COMPATIBILITY_NOT_CONFIGURED = 40408;
    /** Older servers send 409 as error_code; newer ones 40901. */
    public static final int INCOMPATIBLE_SCHEMA_LEGACY = 409;
    public static final int INCOMPATIBLE_SCHEMA = 40901;
    public static final int INVALID_SCHEMA = 42201;
    public static final int INVALID_VERSION = 42202;
    public static final int INVALID_COMPATIBILITY_LEVEL = 42203;
    public static final int BACKEND_ERROR = 50001;

    private RegistryErrors() {
    }

    static SchemaRegistryException toException(final int status, final int code, final String message) {
        if (status == 409 || code == INCOMPATIBLE_SCHEMA || code == INCOMPATIBLE_SCHEMA_LEGACY) {
            return new IncompatibleSchemaException(message, status, code);
        }
        if (code == SUBJECT_NOT_FOUND) {
            return new SubjectNotFoundException(message, status, code);
        }
        if (code == VERSION_NOT_FOUND) {
            return new VersionNotFoundException(message, status, code);
        }
        if (code == SCHEMA_NOT_FOUND) {
            return new SchemaNotFoundException(message, status, code);
        }
        if (code == INVALID_SCHEMA || (status == 422 && code < 0)) {
            return new InvalidSchemaException(message, status, code);
        }
        if (status == 401 || status == 403) {
            return new RegistryAuthException(message, status, code);
        }
        if (status == 404 && code < 0) {
            return new SchemaRegistryException(message
                    + "; is the base URL right (Apicurio needs .../apis/ccompat/v7)?", status, code);
        }
        return new SchemaRegistryException(message, status, code);
    }
}
