package io.gpupool.cli.up;

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
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code gpupool up}'s progress and readiness read from the scheduler: a pool's view from the
 * query API and the decision counter from its /metrics. Empty when the scheduler does not answer
 * (yet): progress shows what it has and never fails the pipeline.
 */
public final class SchedulerProbe {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern DECISIONS = Pattern.compile("^gpupool_decisions_total\\{([^}]*)\\}\\s+([0-9.eE+-]+)\\s*$",
            Pattern.MULTILINE);
    private static final Pattern OUTCOME = Pattern.compile("outcome=\"([^\"]*)\"");

    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public SchedulerProbe(final String baseUrl) {
        this.base = baseUrl.replaceAll("/+$", "");
    }

    /** The pool as GET /pools/POOL gives it (nodes, gpus.total/allocated/busy, queue.total). */
    public Optional<JsonNode> pool(final String pool) {
        return get("/pools/" + URLEncoder.encode(pool, StandardCharsets.UTF_8)).flatMap(body -> {
            try {
                return Optional.of(JSON.readTree(body));
            } catch (IOException e) {
                return Optional.empty();
            }
        });
    }

    /** Decisions the scheduler has made, all outcomes, or only {@code outcome} (e.g. PLACED; case ignored) when given. */
    public Optional<Long> decisions(final String outcome) {
        return get("/metrics").map(text -> {
            double sum = 0;
            final Matcher m = DECISIONS.matcher(text);
            while (m.find()) {
                final Matcher o = OUTCOME.matcher(m.group(1));
                if (outcome == null || (o.find() && o.group(1).equalsIgnoreCase(outcome))) {
                    sum += Double.parseDouble(m.group(2));
                }
            }
            return Math.round(sum);
        });
    }

    private Optional<String> get(final String path) {
        try {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? Optional.of(r.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
