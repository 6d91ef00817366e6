package io.gpupool.scheduler.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * What {@code gpupool queue}, {@code jobs}, {@code nodes}, {@code pool} and {@code explain} use to ask a scheduler.
 * A plain {@link HttpURLConnection}: {@code java.net.http.HttpClient} sets up TLS (the default trust store) even
 * for an http URL, which was a third of a short command's CPU.
 */
public final class QueryClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CONNECT_TIMEOUT_MS = 3_000;
    private static final int READ_TIMEOUT_MS = 10_000;
    private final String base;

    public QueryClient(final String baseUrl) {
        this.base = baseUrl.replaceAll("/+$", "");
    }

    /** A failed query, with a message for people. */
    public static final class QueryException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;

        QueryException(final int status, final String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    public JsonNode queued() {
        return get("/jobs?state=queued");
    }

    /**
     * Jobs in the given states ({@code queued}, {@code running}, {@code finished}, {@code all}; comma-separated),
     * optionally of one pool, tenant or with a part on one node (null: any).
     */
    public JsonNode jobs(final String states, final String pool, final String tenant, final String node) {
        final StringBuilder q = new StringBuilder("/jobs?state=").append(encode(states));
        if (pool != null) {
            q.append("&pool=").append(encode(pool));
        }
        if (tenant != null) {
            q.append("&tenant=").append(encode(tenant));
        }
        if (node != null) {
            q.append("&node=").append(encode(node));
        }
        return get(q.toString());
    }

    /** Every node (of one pool, when {@code pool} is not null). */
    public JsonNode nodes(final String pool) {
        return get(pool == null ? "/nodes" : "/nodes?pool=" + encode(pool));
    }

    public JsonNode pool(final String pool) {
        return get("/pools/" + encode(pool));
    }

    public JsonNode job(final String jobId) {
        return get("/jobs/" + encode(jobId));
    }

    private static String encode(final String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public JsonNode pools() {
        return get("/pools");
    }

    private JsonNode get(final String path) {
        final int status;
        final byte[] answer;
        try {
            final HttpURLConnection c = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
            c.setConnectTimeout(CONNECT_TIMEOUT_MS);
            c.setReadTimeout(READ_TIMEOUT_MS);
            status = c.getResponseCode();
            try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
                answer = in == null ? new byte[0] : in.readAllBytes();
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new QueryException(-1, "the scheduler at " + base + " does not answer (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        final JsonNode body;
        try {
            body = JSON.readTree(answer);
        } catch (IOException e) {
            throw new QueryException(status, "the scheduler at " + base + " answered something that is not JSON");
        }
        if (status != 200) {
            throw new QueryException(status, body.path("error").asText("HTTP " + status));
        }
        return body;
    }
}
