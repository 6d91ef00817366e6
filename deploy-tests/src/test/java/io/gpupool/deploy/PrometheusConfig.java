package io.gpupool.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The static scrape targets of a prometheus.yml, by job. */
final class PrometheusConfig {
    private PrometheusConfig() {
    }

    static Map<String, List<String>> staticTargets(final Path file) throws IOException {
        final JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
        final Map<String, List<String>> out = new LinkedHashMap<>();
        for (final JsonNode job : root.path("scrape_configs")) {
            final List<String> targets = new ArrayList<>();
            for (final JsonNode sc : job.path("static_configs")) {
                sc.path("targets").forEach(t -> targets.add(t.asText()));
            }
            out.put(job.path("job_name").asText(), targets);
        }
        return out;
    }
}
