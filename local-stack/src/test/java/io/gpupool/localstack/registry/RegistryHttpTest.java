package io.gpupool.localstack.registry;

import io.gpupool.registry.CompatibilityLevel;
import io.gpupool.registry.CompatibilityResult;
import io.gpupool.registry.IncompatibleSchemaException;
import io.gpupool.registry.InvalidSchemaException;
import io.gpupool.registry.RegisteredSchema;
import io.gpupool.registry.RegistryAuthException;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.registry.SchemaNotFoundException;
import io.gpupool.registry.SchemaRegistryClient;
import io.gpupool.registry.SchemaRegistryException;
import io.gpupool.registry.SubjectNotFoundException;
import io.gpupool.registry.VersionNotFoundException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Our client against our server over real HTTP (schemas kept in memory here; see RegistryOnKafkaTest). */
class RegistryHttpTest {
    private SchemaRegistryServer server;
    private SchemaRegistryClient client;

    @BeforeEach
    void start() {
        server = SchemaRegistryServer.builder().host("127.0.0.1").port(0).start();
        client = SchemaRegistryClient.of(server.url());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void registersLooksUpAndFetchesById() {
        final int id1 = client.register("jobs-value", Schemas.V1);
        final int id2 = client.register("jobs-value", Schemas.V2);
        assertThat(id1).isEqualTo(1);
        assertThat(id2).isEqualTo(2);
        // the same schema again: same id, no new version
        assertThat(SchemaRegistryClient.of(server.url()).register("jobs-value", Schemas.V1)).isEqualTo(id1);
        // the same schema under another subject keeps its global id
        assertThat(client.register("other-value", Schemas.V2)).isEqualTo(id2);

        final RegisteredSchema found = SchemaRegistryClient.of(server.url()).lookup("jobs-value", Schemas.V2);
        assertThat(found.id()).isEqualTo(id2);
        assertThat(found.version()).isEqualTo(2);
        assertThat(found.subject()).isEqualTo("jobs-value");

        assertThat(SchemaRegistryClient.of(server.url()).schemaById(id1)).isEqualTo(Schemas.V1);
        final RegisteredSchema latest = client.latest("jobs-value");
        assertThat(latest.version()).isEqualTo(2);
        assertThat(latest.schema()).isEqualTo(Schemas.V2);
        assertThat(client.subjects()).containsExactly("jobs-value", "other-value");
    }

    @Test
    void incompatibleSchemaIsRefusedWith409() {
        client.register("jobs-value", Schemas.V1);
        assertThatThrownBy(() -> client.register("jobs-value", Schemas.REQUIRED_FIELD))
                .isInstanceOfSatisfying(IncompatibleSchemaException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(409);
                    assertThat(e.errorCode()).isEqualTo(409);
                    assertThat(e.getMessage()).contains("tenant");
                });
        final CompatibilityResult r = client.testCompatibility("jobs-value", Schemas.REQUIRED_FIELD);
        assertThat(r.isCompatible()).isFalse();
        assertThat(r.messages()).anySatisfy(m -> assertThat(m).contains("READER_FIELD_MISSING_DEFAULT_VALUE"));
        assertThat(client.testCompatibility("jobs-value", Schemas.V2).isCompatible()).isTrue();
        assertThat(client.latest("jobs-value").version()).as("refused schema left no version").isEqualTo(1);
    }

    @Test
    void compatibilityLevelsAreEnforced() {
        assertThat(client.globalCompatibility()).isEqualTo(CompatibilityLevel.BACKWARD);
        client.register("fwd-value", Schemas.V1);
        assertThat(client.subjectCompatibility("fwd-value")).isEmpty();
        assertThat(client.setSubjectCompatibility("fwd-value", CompatibilityLevel.FORWARD))
                .isEqualTo(CompatibilityLevel.FORWARD);
        assertThat(client.subjectCompatibility("fwd-value")).contains(CompatibilityLevel.FORWARD);
        // FORWARD: old readers must read new data; a new required field is fine, a retype is not.
        client.register("fwd-value", Schemas.REQUIRED_FIELD);
        assertThatThrownBy(() -> client.register("fwd-value", Schemas.RETYPED))
                .isInstanceOf(IncompatibleSchemaException.class);

        client.register("full-value", Schemas.V1);
        client.setSubjectCompatibility("full-value", CompatibilityLevel.FULL);
        assertThatThrownBy(() -> client.register("full-value", Schemas.REQUIRED_FIELD))
                .isInstanceOf(IncompatibleSchemaException.class);
        client.register("full-value", Schemas.V2);

        client.register("none-value", Schemas.V1);
        client.setSubjectCompatibility("none-value", CompatibilityLevel.NONE);
        client.register("none-value", Schemas.RETYPED);

        // Transitive: INT_ID_WITH_DEFAULT reads ONLY_GPUS data but not v1/v2 data (string id).
        for (final String s : List.of("plain-value", "transitive-value")) {
            client.register(s, Schemas.V1);
            client.register(s, Schemas.V2);
            client.register(s, Schemas.ONLY_GPUS);
        }
        client.setSubjectCompatibility("transitive-value", CompatibilityLevel.BACKWARD_TRANSITIVE);
        client.register("plain-value", Schemas.INT_ID_WITH_DEFAULT);
        assertThatThrownBy(() -> client.register("transitive-value", Schemas.INT_ID_WITH_DEFAULT))
                .isInstanceOf(IncompatibleSchemaException.class);

        client.setGlobalCompatibility(CompatibilityLevel.NONE);
        assertThat(client.globalCompatibility()).isEqualTo(CompatibilityLevel.NONE);
    }

    @Test
    void notFoundErrorsAreTyped() {
        assertThatThrownBy(() -> client.latest("missing-value")).isInstanceOfSatisfying(
                SubjectNotFoundException.class, e -> assertThat(e.errorCode()).isEqualTo(40401));
        client.register("jobs-value", Schemas.V1);
        assertThatThrownBy(() -> client.lookup("jobs-value", Schemas.V2)).isInstanceOfSatisfying(
                SchemaNotFoundException.class, e -> assertThat(e.errorCode()).isEqualTo(40403));
        assertThatThrownBy(() -> client.schemaById(999)).isInstanceOf(SchemaNotFoundException.class);
        assertThatThrownBy(() -> client.lookup("missing-value", Schemas.V1)).isInstanceOf(SubjectNotFoundException.class);
    }

    @Test
    void rawProtocolMatchesConfluent() throws Exception {
        final HttpClient http = HttpClient.newHttpClient();
        final HttpResponse<String> bad = http.send(HttpRequest.newBuilder(URI.create(server.url()
                        + "/subjects/x-value/versions"))
                .header("Content-Type", SchemaRegistryClient.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofString("{\"schema\":\"{\\\"type\\\":\\\"recrd\\\"}\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(bad.body()).contains("\"error_code\":42201");
        assertThat(bad.headers().firstValue("Content-Type")).contains(SchemaRegistryClient.CONTENT_TYPE);

        client.register("x-value", Schemas.V1);
        final HttpResponse<String> version = http.send(HttpRequest.newBuilder(URI.create(server.url()
                + "/subjects/x-value/versions/7")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(version.statusCode()).isEqualTo(404);
        assertThat(version.body()).contains("\"error_code\":40402");
        final HttpResponse<String> versions = http.send(HttpRequest.newBuilder(URI.create(server.url()
                + "/subjects/x-value/versions")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(versions.body()).isEqualTo("[1]");
        final HttpResponse<String> garbage = http.send(HttpRequest.newBuilder(URI.create(server.url()
                + "/subjects/x-value/versions")).POST(HttpRequest.BodyPublishers.ofString("not json")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(garbage.statusCode()).isEqualTo(400);
        final HttpResponse<String> level = http.send(HttpRequest.newBuilder(URI.create(server.url() + "/config"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"compatibility\":\"SIDEWAYS\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(level.statusCode()).isEqualTo(422);
        assertThat(level.body()).contains("42203");
        final HttpResponse<String> subjectLevel = http.send(HttpRequest.newBuilder(URI.create(server.url()
                + "/config/x-value?defaultToGlobal=true")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(subjectLevel.body()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
        final HttpResponse<String> protobuf = http.send(HttpRequest.newBuilder(URI.create(server.url()
                + "/subjects/p-value/versions")).POST(HttpRequest.BodyPublishers.ofString(
                "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\";\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(protobuf.statusCode()).isEqualTo(422);
        // a primitive schema is a valid Avro schema (e.g. for keys)
        assertThat(client.register("y-key", Schema.create(Schema.Type.STRING)))
                .isPositive();
    }

    @Test
    void invalidSchemaAndVersionAreTyped() {
        // A default that does not match its type: Avro builds it when asked not to validate,
        // the registry must refuse it (42201).
        final Schema.Parser lenient = new Schema.Parser().setValidateDefaults(false);
        final Schema badDefault = lenient.parse("{\"type\":\"record\",\"name\":\"B\","
                + "\"fields\":[{\"name\":\"n\",\"type\":\"int\",\"default\":\"many\"}]}");
        assertThatThrownBy(() -> client.register("b-value", badDefault)).isInstanceOfSatisfying(
                InvalidSchemaException.class, e -> assertThat(e.errorCode()).isEqualTo(42201));
        client.register("b-value", Schemas.V1);
        assertThat(client.version("b-value", 1).schema()).isEqualTo(Schemas.V1);
        assertThatThrownBy(() -> client.version("b-value", 2)).isInstanceOfSatisfying(
                VersionNotFoundException.class, e -> assertThat(e.errorCode()).isEqualTo(40402));
    }

    @Test
    void basicAuthBearerTokenAndContextPath() {
        try (SchemaRegistryServer secured = SchemaRegistryServer.builder().port(0).contextPath("/apis/ccompat/v7")
                .basicAuth("alice", "s3cret").bearerToken("tok-123").start()) {
            assertThat(secured.url()).endsWith("/apis/ccompat/v7");
            assertThatThrownBy(() -> SchemaRegistryClient.of(secured.url()).register("a-value", Schemas.V1))
                    .isInstanceOfSatisfying(RegistryAuthException.class, e -> assertThat(e.httpStatus()).isEqualTo(401));
            final SchemaRegistryClient basic = new SchemaRegistryClient(RegistryClientConfig.fromMap(Map.of(
                    "schema.registry.url", secured.url() + "/",
                    "basic.auth.credentials.source", "USER_INFO",
                    "basic.auth.user.info", "alice:s3cret")));
            assertThat(basic.register("a-value", Schemas.V1)).isEqualTo(1);
            final SchemaRegistryClient bearer = new SchemaRegistryClient(
                    RegistryClientConfig.of(secured.url()).withBearerToken("tok-123"));
            assertThat(bearer.schemaById(1)).isEqualTo(Schemas.V1);
            final SchemaRegistryClient wrong = new SchemaRegistryClient(
                    RegistryClientConfig.of(secured.url()).withBasicAuth("alice", "nope"));
            assertThatThrownBy(() -> wrong.schemaById(1)).isInstanceOf(RegistryAuthException.class);
            // without the context path the server answers 404, and the client hints at the base URL
            final String root = secured.url().replace("/apis/ccompat/v7", "");
            assertThatThrownBy(() -> new SchemaRegistryClient(RegistryClientConfig.of(root).withBearerToken("tok-123"))
                    .schemaById(1)).isInstanceOf(SchemaRegistryException.class).hasMessageContaining("base URL");
        }
    }

    @Test
    void unreachableRegistryFailsOverThenReportsClearly() {
        final String dead = "http://127.0.0.1:1";
        final SchemaRegistryClient failover = SchemaRegistryClient.of(dead + "," + server.url());
        assertThat(failover.register("f-value", Schemas.V1)).isEqualTo(1);
        assertThatThrownBy(() -> SchemaRegistryClient.of(dead).schemaById(1))
                .isInstanceOf(SchemaRegistryException.class).hasMessageContaining("not reachable");
        assertThatThrownBy(() -> RegistryClientConfig.of("ftp://x")).hasMessageContaining("http://");
        assertThatThrownBy(() -> RegistryClientConfig.fromMap(Map.of())).hasMessageContaining("schema.registry.url");
    }

    @Test
    void cachedAnswersNeedNoServer() {
        final int id = client.register("c-value", Schemas.V1);
        assertThat(client.schemaById(id)).isEqualTo(Schemas.V1);
        server.close();
        assertThat(client.register("c-value", Schemas.V1)).isEqualTo(id);
        assertThat(client.idOf("c-value", Schemas.V1)).isEqualTo(id);
        assertThat(client.schemaById(id)).isEqualTo(Schemas.V1);
        assertThatThrownBy(() -> client.register("c-value", Schemas.V2)).isInstanceOf(SchemaRegistryException.class);
        server = SchemaRegistryServer.builder().port(0).start();
    }

    @Test
    void concurrentRegistrationsGetDistinctIdsAndGaplessVersions() throws Exception {
        final int threads = 4;
        final int perThread = 10;
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        final List<Future<List<Integer>>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int thread = t;
            futures.add(pool.submit(() -> {
                final SchemaRegistryClient own = SchemaRegistryClient.of(server.url());
                final List<Integer> ids = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    // each schema adds one optional field, so every order is BACKWARD compatible
                    ids.add(own.register("race-value", SchemaBuilder.record("R").fields()
                            .optionalInt("f" + thread + "_" + i).endRecord()));
                }
                return ids;
            }));
        }
        final Set<Integer> all = new TreeSet<>();
        for (final Future<List<Integer>> f : futures) {
            all.addAll(f.get());
        }
        pool.shutdown();
        assertThat(all).hasSize(threads * perThread);
        assertThat(client.latest("race-value").version()).isEqualTo(threads * perThread);
    }

    @Test
    void subjectsWithOddCharactersRoundTrip() {
        client.register("a b+c/d-value", Schemas.V1);
        assertThat(client.subjects()).containsExactly("a b+c/d-value");
        assertThat(client.latest("a b+c/d-value").id()).isEqualTo(1);
        assertThatThrownBy(() -> client.latest("a b c/d-value")).isInstanceOf(SubjectNotFoundException.class);
    }
}
