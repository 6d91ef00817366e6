package io.gpupool.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole stack on one data directory, twice: the second start keeps addresses and registered schemas. */
class LocalStackRestartTest {

    private static final String SCHEMA = "{\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"Probe\\\","
            + "\\\"fields\\\":[{\\\"name\\\":\\\"n\\\",\\\"type\\\":\\\"int\\\"}]}\"}";

    @TempDir
    Path dataDir;

    @Test
    void aRestartedStackKeepsItsAddressesAndSchemaIds() throws Exception {
        final String bootstrap;
        final String registry;
        final String registered;
        try (LocalStack stack = LocalStack.start(LocalStackSettings.defaults(dataDir))) {
            assertThat(Files.exists(StackDescriptor.file(dataDir))).isTrue();
            bootstrap = stack.bootstrapServers();
            registry = stack.registryUrl().orElseThrow();
            registered = post(registry + "/subjects/probe-value/versions", SCHEMA);
            assertThat(registered).contains("\"id\"");
        }
        assertThat(Files.exists(StackDescriptor.file(dataDir))).as("descriptor removed on clean stop").isFalse();
        assertThat(LocalStack.findRunning(dataDir)).isEmpty();

        try (LocalStack again = LocalStack.start(LocalStackSettings.defaults(dataDir))) {
            assertThat(again.broker().formattedNow()).isFalse();
            assertThat(again.bootstrapServers()).isEqualTo(bootstrap);
            assertThat(again.registryUrl()).contains(registry);
            // The same schema under the same subject keeps its id: it was read back from _schemas.
            assertThat(post(registry + "/subjects/probe-value", SCHEMA)).contains(registered.replaceAll("[{}]", ""));
        }
    }

    private static String post(final String url, final String body) throws Exception {
        final HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }
}
