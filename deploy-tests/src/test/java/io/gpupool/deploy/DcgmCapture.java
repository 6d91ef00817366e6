package io.gpupool.deploy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands in for dcgm-exporter on a GPU node this machine lacks: serves a real scrape (a Tesla T4,
 * see resources/telemetry/README.md) at /metrics, with DCGM_FI_DEV_XID_ERRORS set to the Xid
 * the "GPU" last reported.
 */
final class DcgmCapture implements AutoCloseable {
    private final HttpServer server;
    private final AtomicInteger xid = new AtomicInteger(0);

    DcgmCapture() throws IOException {
        final String capture;
        try (InputStream in = DcgmCapture.class.getResourceAsStream("/telemetry/dcgm/metrics-tesla-t4.txt")) {
            capture = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/metrics", exchange -> {
            try (exchange) {
                final byte[] body = capture.replaceAll("(?m)^(DCGM_FI_DEV_XID_ERRORS\\{[^}]*\\}) \\S+$", "$1 " + xid.get())
                        .getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/metrics");
    }

    void reportXid(final int code) {
        xid.set(code);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
