package io.gpupool.scheduler.query;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Asks another scheduler instance (host:port from application.server) for its local answer. */
final class Forwarder {
    /** An instance's answer: status and body. */
    record Answer(int status, String body) {
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    Answer get(final String hostPort, final String pathAndQuery) {
        final String sep = pathAndQuery.contains("?") ? "&" : "?";
        final HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + hostPort + pathAndQuery + sep + "local=true"))
                .timeout(Duration.ofSeconds(5)).GET().build();
        try {
            final HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Answer(502, "{\"error\":\"instance " + hostPort + " did not answer: " + e.getMessage() + "\"}");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(503, "{\"error\":\"interrupted\"}");
        }
    }
}
