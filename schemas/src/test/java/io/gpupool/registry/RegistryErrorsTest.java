package io.gpupool.registry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The error-code table as Confluent documents it, including the older and newer 409 forms. */
class RegistryErrorsTest {

    @Test
    void incompatibilityIsRecognisedInEveryForm() {
        assertThat(RegistryErrors.toException(409, 409, "m")).isInstanceOf(IncompatibleSchemaException.class);
        assertThat(RegistryErrors.toException(409, 40901, "m")).isInstanceOf(IncompatibleSchemaException.class);
        assertThat(RegistryErrors.toException(409, -1, "m")).isInstanceOf(IncompatibleSchemaException.class);
    }

    @Test
    void notFoundCodesAreTyped() {
        assertThat(RegistryErrors.toException(404, 40401, "m")).isInstanceOf(SubjectNotFoundException.class);
        assertThat(RegistryErrors.toException(404, 40402, "m")).isInstanceOf(VersionNotFoundException.class);
        assertThat(RegistryErrors.toException(404, 40403, "m")).isInstanceOf(SchemaNotFoundException.class);
        final SchemaRegistryException bare = RegistryErrors.toException(404, -1, "m");
        assertThat(bare).isExactlyInstanceOf(SchemaRegistryException.class);
        assertThat(bare.getMessage()).contains("base URL");
    }

    @Test
    void otherCodes() {
        assertThat(RegistryErrors.toException(422, 42201, "m")).isInstanceOf(InvalidSchemaException.class);
        assertThat(RegistryErrors.toException(401, -1, "m")).isInstanceOf(RegistryAuthException.class);
        assertThat(RegistryErrors.toException(403, 40301, "m")).isInstanceOf(RegistryAuthException.class);
        final SchemaRegistryException backend = RegistryErrors.toException(500, 50001, "m");
        assertThat(backend).isExactlyInstanceOf(SchemaRegistryException.class);
        assertThat(backend.httpStatus()).isEqualTo(500);
        assertThat(backend.errorCode()).isEqualTo(50001);
    }
}
