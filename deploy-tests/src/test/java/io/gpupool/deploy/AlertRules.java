package io.gpupool.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every alerting and recording rule of prometheus/rules/*.yml: name to expression. */
record AlertRules(Map<String, String> expressions) {

    static AlertRules load() throws IOException {
        final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        final Map<String, String> exprs = new LinkedHashMap<>();
        for (final String file : PromtoolTest.yamlFiles("prometheus/rules")) {
            final JsonNode root = yaml.readTree(RepoFiles.resolve(file).toFile());
            for (final JsonNode group : root.path("groups")) {
                for (final JsonNode rule : group.path("rules")) {
                    final String name = rule.hasNonNull("alert") ? rule.get("alert").asText() : rule.path("record").asText();
                    exprs.put(name, rule.path("expr").asText());
                }
            }
        }
        return new AlertRules(exprs);
    }

    List<String> alertNames() {
        return new ArrayList<>(expressions.keySet());
    }
}
