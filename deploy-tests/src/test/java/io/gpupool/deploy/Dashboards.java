package io.gpupool.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** grafana/dashboards/*.json, and every PromQL expression in them with the variables filled in. */
final class Dashboards {
    /** What a query sees with every template variable at "All" and a short time range. */
    static final Map<String, String> VARIABLES = Map.of(
            "$pool", ".*", "$node", ".*", "$model", ".*", "$tenant", ".*",
            "$__rate_interval", "30s", "$__range", "5m", "$__interval", "5s");

    private Dashboards() {
    }

    static List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(RepoFiles.resolve("grafana/dashboards"))) {
            return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }

    static JsonNode read(final Path file) throws IOException {
        return new ObjectMapper().readTree(file.toFile());
    }

    /** Panels of a dashboard, those nested in rows included. */
    static List<JsonNode> panels(final JsonNode dashboard) {
        final List<JsonNode> out = new ArrayList<>();
        for (final JsonNode p : dashboard.path("panels")) {
            out.add(p);
            p.path("panels").forEach(out::add);
        }
        return out;
    }

    /** The expression with the variables' values filled in. */
    static String resolve(final String expr, final Map<String, String> values) {
        String e = expr;
        // Longest names first, so $__rate_interval is not read as $__range + rest.
        for (final String k : values.keySet().stream().sorted((a, b) -> b.length() - a.length()).toList()) {
            e = e.replace(k, values.get(k));
        }
        return e;
    }

    /** One panel query, named for messages. */
    record Query(String where, String expr) {
        String resolved() {
            return resolve(expr, VARIABLES);
        }
    }

    /** A template variable {@code label_values(selector, label)}; the selector may use other variables. */
    record Variable(String dashboard, String name, String selector, String label) {
    }

    static List<Variable> variables() throws IOException {
        final Pattern p = Pattern.compile("^label_values\\((.+),\\s*(\\w+)\\)$");
        final List<Variable> out = new ArrayList<>();
        for (final Path f : files()) {
            for (final JsonNode v : read(f).path("templating").path("list")) {
                final Matcher m = p.matcher(v.path("query").path("query").asText());
                if (!m.matches()) {
                    throw new IllegalStateException(f + " variable " + v.path("name") + " is not label_values(selector, label)");
                }
                out.add(new Variable(f.getFileName().toString(), v.path("name").asText(), m.group(1).trim(), m.group(2)));
            }
        }
        return out;
    }

    static List<Query> queries() throws IOException {
        final List<Query> out = new ArrayList<>();
        for (final Path f : files()) {
            final JsonNode d = read(f);
            for (final JsonNode p : panels(d)) {
                for (final JsonNode t : p.path("targets")) {
                    out.add(new Query(f.getFileName() + " / " + p.path("title").asText() + " / " + t.path("refId").asText(),
                            t.path("expr").asText()));
                }
            }
        }
        return out;
    }
}
