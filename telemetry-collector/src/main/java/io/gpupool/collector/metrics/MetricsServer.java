package io.gpupool.collector.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/** Serves a Prometheus registry at /metrics on the JDK's own HTTP server. */
public final class MetricsServer implements AutoCloseable {
    private final HttpServer server;

    private MetricsServer(final HttpServer server) {
        this.server = server;
    }

    /** @param port 0 for any free port */
    public static MetricsServer start(final String host, final int port, final PrometheusMeterRegistry registry)
            throws IOException {
        final HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.createContext("/metrics", exchange -> {
            try (exchange) {
                final byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "metrics-http");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return new MetricsServer(server);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
