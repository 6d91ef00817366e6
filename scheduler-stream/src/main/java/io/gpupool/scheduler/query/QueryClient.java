package io.gpupool.scheduler.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** What {@code gpupool queue}, {@code jobs}, {@code nodes}, {@code pool} and {@code explain} use to ask a scheduler. */
public final class QueryClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

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
        final HttpResponse<String> r;
        try {
            r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new QueryException(-1, "the scheduler at " + base + " does not answer (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException(-1, "interrupted");
        }
        final JsonNode body;
        try {
            body = JSON.readTree(r.body());
        } catch (IOException e) {
            throw new QueryException(r.statusCode(), "the scheduler at " + base + " answered something that is not JSON");
        }
        if (r.statusCode() != 200) {
            throw new QueryException(r.statusCode(), body.path("error").asText("HTTP " + r.statusCode()));
        }
        return body;
    }
}
