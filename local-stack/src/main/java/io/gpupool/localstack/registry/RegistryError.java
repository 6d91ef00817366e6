package io.gpupool.localstack.registry;

import io.gpupool.registry.RegistryErrors;

/** A request the registry refuses, with Confluent's HTTP status and error_code. */
final class RegistryError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int httpStatus;
    private final int errorCode;

    RegistryError(final int httpStatus, final int errorCode, final String message) {
        super(message);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    int httpStatus() {
        return httpStatus;
    }

    int errorCode() {
        return errorCode;
    }

    static RegistryError subjectNotFound(final String subject) {
        return new RegistryError(404, RegistryErrors.SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
    }

    static RegistryError versionNotFound(final String subject, final String version) {
        return new RegistryError(404, RegistryErrors.VERSION_NOT_FOUND,
                "Version " + version + " not found for subject '" + subject + "'.");
    }

    static RegistryError subjectSoftDeleted(final String subject) {
        return new RegistryError(404, RegistryErrors.SUBJECT_SOFT_DELETED,
                "Subject '" + subject + "' was soft deleted.Set permanent=true to delete permanently");
    }

    static RegistryError subjectNotSoftDeleted(final String subject) {
        return new RegistryError(404, RegistryErrors.SUBJECT_NOT_SOFT_DELETED,
                "Subject '" + subject + "' was not deleted first before being permanently deleted");
    }

    static RegistryError versionSoftDeleted(final String subject, final int version) {
        return new RegistryError(404, RegistryErrors.VERSION_SOFT_DELETED, "Subject '" + subject + "' Version "
                + version + " was soft deleted.Set permanent=true to delete permanently");
    }

    static RegistryError versionNotSoftDeleted(final String subject, final int version) {
        return new RegistryError(404, RegistryErrors.VERSION_NOT_SOFT_DELETED, "Subject '" + subject + "' Version "
                + version + " was not deleted first before being permanently deleted");
    }

    static RegistryError schemaNotFound(final String what) {
        return new RegistryError(404, RegistryErrors.SCHEMA_NOT_FOUND, what);
    }

    static RegistryError invalidSchema(final String message) {
        return new RegistryError(422, RegistryErrors.INVALID_SCHEMA, message);
    }

    static RegistryError invalidVersion(final String version) {
        return new RegistryError(422, RegistryErrors.INVALID_VERSION, "The specified version '" + version
                + "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"");
    }

    static RegistryError invalidCompatibility(final String level) {
        return new RegistryError(422, RegistryErrors.INVALID_COMPATIBILITY_LEVEL,
                "Invalid compatibility level '" + level + "'. Valid values are NONE, BACKWARD, BACKWARD_TRANSITIVE, "
                        + "FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE");
    }

    static RegistryError incompatible(final String message) {
        // Confluent answers HTTP 409 with error_code 409.
        return new RegistryError(409, RegistryErrors.INCOMPATIBLE_SCHEMA_LEGACY, message);
    }
}
