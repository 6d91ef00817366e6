package io.gpupool.collector.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.gpupool.collector.TestFiles;
import io.gpupool.collector.gpu.GpuSnapshot;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Scrapes the real T4 scrape from a real HTTP server, as the live collector scrapes dcgm-exporter. */
class DcgmHttpSourceTest {

    @Test
    void scrapesOverHttp() throws Exception {
        final byte[] body = TestFiles.text("dcgm/metrics-tesla-t4.txt").getBytes(StandardCharsets.UTF_8);
        final HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/metrics", ex -> {
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.createContext("/broken", ex -> {
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        server.start();
        try {
            final String base = "http://127.0.0.1:" + server.getAddress().getPort();
            final GpuSnapshot s = new DcgmHttpSource(URI.create(base + "/metrics"), Duration.ofSeconds(5)).read();
            assertThat(s.gpus()).hasSize(3);
            assertThat(s.gpus().get(0).temperatureC()).isEqualTo(25.0);
            assertThatThrownBy(() -> new DcgmHttpSource(URI.create(base + "/broken"), Duration.ofSeconds(5)).read())
                    .isInstanceOf(IOException.class).hasMessageContaining("503");
        } finally {
            server.stop(0);
        }
    }
}
