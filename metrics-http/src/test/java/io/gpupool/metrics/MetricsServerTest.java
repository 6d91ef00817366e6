package io.gpupool.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The /metrics endpoint over real HTTP, on an ephemeral port, with a real Prometheus registry. */
class MetricsServerTest {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private MetricsServer server;
    private int port;

    @BeforeEach
    void start() throws IOException {
        server = MetricsServer.start(registry, "127.0.0.1", 0);
        port = server.port();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        registry.close();
    }

    @Test
    void servesTheRegistryInThePrometheusTextFormat() throws Exception {
        Counter.builder("gpupool.test.commands").tag("type", "ALLOCATE").register(registry).increment(3);

        final HttpResponse<String> r = get("/metrics");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(r.body()).contains("# TYPE gpupool_test_commands_total counter")
                .containsPattern("(?m)^gpupool_test_commands_total\\{type=\"ALLOCATE\"} 3\\.0$");
        assertThat(r.body()).isEqualTo(registry.scrape());
    }

    @Test
    void eachScrapeShowsTheCurrentValues() throws Exception {
        final Counter c = Counter.builder("gpupool.test.ticks").register(registry);
        c.increment();
        assertThat(get("/metrics").body()).containsPattern("(?m)^gpupool_test_ticks_total 1\\.0$");
        c.increment();
        assertThat(get("/metrics").body()).containsPattern("(?m)^gpupool_test_ticks_total 2\\.0$");
    }

    @Test
    void servesNothingElse() throws Exception {
        assertThat(get("/").statusCode()).isEqualTo(404);
        assertThat(get("/health").statusCode()).isEqualTo(404);
        final HttpResponse<String> post = http.send(HttpRequest.newBuilder(url("/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.body()).isEmpty();
    }

    @Test
    void closeFreesThePort() throws Exception {
        assertThat(port).isPositive();
        server.close();
        server = null;

        assertThatThrownBy(() -> get("/metrics")).isInstanceOf(ConnectException.class);
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void closeEndsTheEndpointsThread() throws Exception {
        get("/metrics"); // the executor's thread exists once it served a request
        assertThat(metricsThreads()).isPositive();
        server.close();
        server = null;
        await().atMost(Duration.ofSeconds(10)).until(() -> metricsThreads() == 0);
    }

    private static long metricsThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("metrics-http")).count();
    }

    private URI url(final String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private HttpResponse<String> get(final String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(url(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
