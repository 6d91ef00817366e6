package io.gpupool.deploy;

import static org.awaitility.Awaitility.await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/** A real Prometheus server (Debian's package) in a temporary directory, and its HTTP API. */
final class PrometheusServer implements AutoCloseable {
    private final Process process;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    private PrometheusServer(final Process process, final URI base) {
        this.process = process;
        this.base = base;
    }

    /** Scrapes every second: job name to targets (host:port). */
    static PrometheusServer start(final Path binary, final Path dir, final Map<String, List<String>> jobs)
            throws IOException, InterruptedException {
        final StringBuilder yml = new StringBuilder("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n");
        jobs.forEach((job, targets) -> yml.append("  - job_name: ").append(job).append("\n    static_configs:\n      - targets: [")
                .append(String.join(", ", targets.stream().map(t -> "\"" + t + "\"").toList())).append("]\n"));
        Files.createDirectories(dir);
        final Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, yml.toString());
        final int port = FreePort.find();
        final Process p = new ProcessBuilder(binary.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        final PrometheusServer server = new PrometheusServer(p, URI.create("http://127.0.0.1:" + port));
        server.awaitReady(dir.resolve("prometheus.log"));
        return server;
    }

    private void awaitReady(final Path log) throws IOException, InterruptedException {
        try {
            await("prometheus ready").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .ignoreExceptionsInstanceOf(IOException.class) // not listening yet (ConnectException and kin)
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException("prometheus exited: " + Files.readString(log));
                        }
                        return get("/-/ready").statusCode() == 200;
                    });
        } catch (final ConditionTimeoutException e) {
            close();
            throw new IllegalStateException("prometheus not ready within 30 s: " + Files.readString(log), e);
        }
    }

    private HttpResponse<String> get(final String pathAndQuery) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** GET an API path; the parsed body, whatever its status (errors carry errorType and error). */
    JsonNode api(final String path, final Map<String, String> params) throws IOException, InterruptedException {
        final StringBuilder q = new StringBuilder(path).append('?');
        params.forEach((k, v) -> q.append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8)).append('&'));
        return json.readTree(get(q.toString()).body());
    }

    /** An instant query at the latest evaluation time. */
    JsonNode query(final String promql) throws IOException, InterruptedException {
        return api("/api/v1/query", Map.of("query", promql));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
