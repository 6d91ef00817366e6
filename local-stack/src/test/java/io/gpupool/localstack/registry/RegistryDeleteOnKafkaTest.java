package io.gpupool.localstack.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.registry.SchemaRegistryClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DELETE as Confluent's registry answers it, over real HTTP, on the schema log in a real broker:
 * soft delete hides (listed with {@code ?deleted=true}), a permanent delete needs a soft delete first
 * (40405 / 40407 otherwise), ids stay readable, and every deletion survives a restart.
 */
@ExtendWith(LocalStackExtension.class)
class RegistryDeleteOnKafkaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    private record Answer(int status, JsonNode body) {
        int errorCode() {
            return body.path("error_code").asInt(0);
        }
    }

    private Answer call(final String base, final String method, final String path) throws Exception {
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), JSON.readTree(r.body()));
    }

    @Test
    void softThenPermanentDeletesOfSubjectsAndVersionsFollowConfluentAndSurviveARestart(final TestStack stack)
            throws Exception {
        final String topic = stack.uniqueName("_schemas-delete");
        try (SchemaRegistryServer first = SchemaRegistryServer.builder().kafka(stack.bootstrapServers())
                .topic(topic).port(0).start()) {
            final String url = first.url();
            final SchemaRegistryClient c = SchemaRegistryClient.of(url);
            final int v1 = c.register("jobs-value", Schemas.V1);
            c.register("jobs-value", Schemas.V2);
            c.register("gone-value", Schemas.RETYPED);
            c.register("kept-value", Schemas.ONLY_GPUS);

            // a permanent delete before the soft one is refused
            assertThat(call(url, "DELETE", "/subjects/gone-value?permanent=true").errorCode()).isEqualTo(40405);
            assertThat(call(url, "DELETE", "/subjects/jobs-value/versions/1?permanent=true").errorCode()).isEqualTo(40407);
            assertThat(call(url, "DELETE", "/subjects/nothing-value").errorCode()).isEqualTo(40401);
            assertThat(call(url, "DELETE", "/subjects/jobs-value/versions/9").errorCode()).isEqualTo(40402);

            // soft: the answer lists what was deleted; it is hidden, but listed with ?deleted=true
            final Answer subject = call(url, "DELETE", "/subjects/gone-value");
            assertThat(subject.status()).isEqualTo(200);
            assertThat(subject.body().toString()).isEqualTo("[1]");
            assertThat(call(url, "DELETE", "/subjects/gone-value").errorCode()).isEqualTo(40404);
            assertThat(call(url, "GET", "/subjects").body().toString()).doesNotContain("gone-value");
            assertThat(call(url, "GET", "/subjects?deleted=true").body().toString()).contains("gone-value");
            assertThat(call(url, "GET", "/subjects/gone-value/versions").errorCode()).isEqualTo(40401);

            final Answer version = call(url, "DELETE", "/subjects/jobs-value/versions/1");
            assertThat(version.body().asInt()).isEqualTo(1);
            assertThat(call(url, "DELETE", "/subjects/jobs-value/versions/1").errorCode()).isEqualTo(40406);
            assertThat(call(url, "GET", "/subjects/jobs-value/versions").body().toString()).isEqualTo("[2]");
            assertThat(call(url, "GET", "/subjects/jobs-value/versions?deleted=true").body().toString()).isEqualTo("[1,2]");
            assertThat(call(url, "GET", "/subjects/jobs-value/versions/1").errorCode()).isEqualTo(40402);
            assertThat(call(url, "GET", "/subjects/jobs-value/versions/1?deleted=true").body().path("deleted").asBoolean())
                    .isTrue();
            // data written with a deleted version's schema can still be read
            assertThat(c.schemaById(v1)).isEqualTo(Schemas.V1);

            // permanent after soft
            assertThat(call(url, "DELETE", "/subjects/gone-value?permanent=true").body().toString()).isEqualTo("[1]");
            assertThat(call(url, "GET", "/subjects?deleted=true").body().toString()).doesNotContain("gone-value");
            assertThat(call(url, "DELETE", "/subjects/jobs-value/versions/1?permanent=true").body().asInt()).isEqualTo(1);
            assertThat(call(url, "GET", "/subjects/jobs-value/versions?deleted=true").body().toString()).isEqualTo("[2]");
        }
        try (SchemaRegistryServer second = SchemaRegistryServer.builder().kafka(stack.bootstrapServers())
                .topic(topic).port(0).start()) {
            final String url = second.url();
            assertThat(call(url, "GET", "/subjects").body().toString()).isEqualTo("[\"jobs-value\",\"kept-value\"]");
            assertThat(call(url, "GET", "/subjects?deleted=true").body().toString()).doesNotContain("gone-value");
            assertThat(call(url, "GET", "/subjects/jobs-value/versions?deleted=true").body().toString()).isEqualTo("[2]");
            // registering again after a soft delete: a new version, numbered after the soft-deleted one
            assertThat(call(url, "DELETE", "/subjects/kept-value").body().toString()).isEqualTo("[1]");
            SchemaRegistryClient.of(url).register("kept-value", Schemas.ONLY_GPUS);
            assertThat(call(url, "GET", "/subjects/kept-value/versions").body().toString()).isEqualTo("[2]");
            assertThat(call(url, "GET", "/subjects/kept-value/versions?deleted=true").body().toString()).isEqualTo("[1,2]");
            // the fields current Confluent clients read: a guid with every schema, and the lookup by it
            final JsonNode latest = call(url, "GET", "/subjects/jobs-value/versions/latest").body();
            final String guid = latest.path("guid").asText();
            assertThat(guid).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
            assertThat(call(url, "GET", "/schemas/ids/" + latest.path("id").asInt()).body().path("guid").asText())
                    .isEqualTo(guid);
            assertThat(call(url, "GET", "/schemas/guids/" + guid).body().path("id").asInt())
                    .isEqualTo(latest.path("id").asInt());
        }
    }
}
