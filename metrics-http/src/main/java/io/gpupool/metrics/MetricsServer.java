package io.gpupool.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Serves a Prometheus registry at GET /metrics on the JDK's own HTTP server (collectors, sinks). */
public final class MetricsServer implements AutoCloseable {
    /** This machine only: what {@code gpupool up} and the tests use. */
    public static final String LOOPBACK = "127.0.0.1";
    /** Every interface: what a node agent scraped from another machine (or a container) needs. */
    public static final String ALL_INTERFACES = "0.0.0.0";

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsServer(final HttpServer server, final ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Starts on host:port (port 0: any free port). */
    public static MetricsServer start(final PrometheusMeterRegistry registry, final String host, final int port)
            throws IOException {
        final HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.createContext("/metrics", exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod())) {
                    exchange.sendResponseHeaders(405, -1);
                    return;
                }
                final byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        // a daemon thread: an open endpoint never keeps a stopping process alive
        final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "metrics-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
        return new MetricsServer(server, executor);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** The address it listens on, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface). */
    public String host() {
        final InetAddress address = server.getAddress().getAddress();
        // 0.0.0.0 binds the IPv6 wildcard too (::, printed 0:0:0:0:0:0:0:0): say it as it was asked
        return address.isAnyLocalAddress() ? ALL_INTERFACES : address.getHostAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        // HttpServer.stop leaves a caller-supplied executor running: a process that opens and closes
        // endpoints (tests, restarts) would collect idle threads
        executor.shutdownNow();
    }
}
