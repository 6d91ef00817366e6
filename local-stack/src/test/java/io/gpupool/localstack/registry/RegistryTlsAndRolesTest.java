package io.gpupool.localstack.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.localstack.secure.StackCertificates;
import io.gpupool.registry.CompatibilityLevel;
import io.gpupool.registry.RegistryAuthException;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.registry.RegistryTls;
import io.gpupool.registry.SchemaRegistryClient;
import io.gpupool.registry.SchemaRegistryException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry over HTTPS with a certificate from keytool, and basic auth with two roles: the client
 * trusts the CA through its own schema.registry.ssl.* settings (not the JVM's truststore); a read-only
 * user reads, looks up and tests compatibility, and is refused (403) a compatibility change, a
 * registration and a delete; the admin may do them. One server for the class: keytool runs once.
 */
class RegistryTlsAndRolesTest {
    private static final String PASSWORD = "test-store-secret";

    @TempDir
    static Path dir;

    private static StackCertificates certificates;
    private static SchemaRegistryServer server;

    @BeforeAll
    static void start() {
        certificates = StackCertificates.ensure(dir.resolve("secure"), PASSWORD);
        server = SchemaRegistryServer.builder().port(0).tls(certificates.serverContext())
                .basicAuth("admin", "admin-secret", RegistryRole.ADMIN)
                .basicAuth("auditor", "auditor-secret", RegistryRole.READ)
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static SchemaRegistryClient client(final String userInfo, final boolean trustTheCa) {
        final Map<String, Object> config = new HashMap<>();
        config.put(RegistryClientConfig.URL, server.url());
        config.put(RegistryClientConfig.BASIC_AUTH_SOURCE, "USER_INFO");
        config.put(RegistryClientConfig.BASIC_AUTH_USER_INFO, userInfo);
        if (trustTheCa) {
            config.put(RegistryTls.TRUSTSTORE_LOCATION, certificates.truststore().toString());
            config.put(RegistryTls.TRUSTSTORE_PASSWORD, PASSWORD);
            config.put(RegistryTls.TRUSTSTORE_TYPE, StackCertificates.TYPE);
        }
        return new SchemaRegistryClient(RegistryClientConfig.fromMap(config));
    }

    @Test
    void theAdminChangesAndTheReadOnlyUserOnlyReads() {
        assertThat(server.url()).startsWith("https://127.0.0.1:");
        final SchemaRegistryClient admin = client("admin:admin-secret", true);
        final SchemaRegistryClient auditor = client("auditor:auditor-secret", true);
        final int id = admin.register("gpupool.jobs-value", Schemas.V1);

        assertThat(auditor.subjects()).containsExactly("gpupool.jobs-value");
        assertThat(auditor.schemaById(id)).isEqualTo(Schemas.V1);
        assertThat(auditor.lookup("gpupool.jobs-value", Schemas.V1).id()).isEqualTo(id);
        assertThat(auditor.testCompatibility("gpupool.jobs-value", Schemas.V2).isCompatible()).isTrue();

        assertThatThrownBy(() -> auditor.setSubjectCompatibility("gpupool.jobs-value", CompatibilityLevel.NONE))
                .isInstanceOfSatisfying(RegistryAuthException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(403);
                    assertThat(e.errorCode()).isEqualTo(RegistryAccess.FORBIDDEN);
                    assertThat(e.getMessage()).contains("needs the admin role");
                });
        assertThatThrownBy(() -> auditor.register("gpupool.jobs-value", Schemas.V2))
                .isInstanceOfSatisfying(RegistryAuthException.class, e -> assertThat(e.httpStatus()).isEqualTo(403));
        assertThat(admin.subjectCompatibility("gpupool.jobs-value")).isEmpty();

        assertThat(admin.setSubjectCompatibility("gpupool.jobs-value", CompatibilityLevel.FULL)).isEqualTo(CompatibilityLevel.FULL);
        assertThat(auditor.subjectCompatibility("gpupool.jobs-value")).contains(CompatibilityLevel.FULL);
    }

    @Test
    void unknownUsersAndUntrustedCertificatesAreRefusedWithTheFix() {
        assertThatThrownBy(() -> client("auditor:wrong", true).subjects())
                .isInstanceOfSatisfying(RegistryAuthException.class, e -> assertThat(e.httpStatus()).isEqualTo(401));
        // without schema.registry.ssl.truststore.* the JVM's CAs do not know the stack's CA
        assertThatThrownBy(() -> client("auditor:auditor-secret", false).subjects())
                .isInstanceOf(SchemaRegistryException.class).hasMessageContaining(RegistryTls.TRUSTSTORE_LOCATION);
        final Map<String, Object> missing = Map.of(RegistryClientConfig.URL, server.url(),
                RegistryTls.TRUSTSTORE_LOCATION, dir.resolve("nope.p12").toString());
        assertThatThrownBy(() -> RegistryClientConfig.fromMap(missing)).hasMessageContaining("no such file");
    }

    @Test
    void aDeleteFromTheReadOnlyUserIsRefusedBeforeAnyRoute() throws Exception {
        final Map<String, Object> tls = Map.of(RegistryTls.TRUSTSTORE_LOCATION, certificates.truststore().toString(),
                RegistryTls.TRUSTSTORE_PASSWORD, PASSWORD, RegistryTls.TRUSTSTORE_TYPE, StackCertificates.TYPE);
        final HttpClient http = HttpClient.newBuilder().sslContext(RegistryTls.fromMap(tls).orElseThrow()).build();
        final HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(server.url() + "/subjects/gpupool.jobs-value"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        "auditor:auditor-secret".getBytes(StandardCharsets.UTF_8)))
                .DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(403);
        assertThat(response.body()).contains("40301");
    }
}
