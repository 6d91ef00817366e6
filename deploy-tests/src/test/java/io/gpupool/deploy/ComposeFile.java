package io.gpupool.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** docker-compose.yml as `docker-compose config` resolves it (anchors merged, variables filled). */
record ComposeFile(JsonNode root) {
    static final String GRAFANA_DASHBOARDS_MOUNT = "/var/lib/grafana/dashboards";

    static ProcessRun config(final Path compose, final Map<String, String> env) throws Exception {
        final Path bin = Binaries.require("docker-compose", "docker-compose");
        final Map<String, String> e = new HashMap<>(env);
        return ProcessRun.run(compose.getParent(), e, List.of(bin.toString(), "-f", compose.toString(), "config"));
    }

    static ComposeFile load() throws Exception {
        final ProcessRun run = config(RepoFiles.resolve("docker-compose.yml"), Map.of("GRAFANA_ADMIN_PASSWORD", "test-only"));
        if (run.exitCode() != 0) {
            throw new AssertionError("docker-compose config failed:\n" + run.output());
        }
        return new ComposeFile(new ObjectMapper(new YAMLFactory()).readTree(run.output()));
    }

    JsonNode service(final String name) {
        final JsonNode s = root.path("services").path(name);
        if (s.isMissingNode()) {
            throw new AssertionError("docker-compose.yml has no service " + name);
        }
        return s;
    }

    List<String> serviceNames() {
        final List<String> names = new ArrayList<>();
        root.path("services").fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** Services built from the repository's Dockerfile: they run the gpupool command. */
    List<String> gpupoolServices() {
        return serviceNames().stream().filter(n -> service(n).has("build")).toList();
    }

    List<String> command(final String service) {
        final List<String> out = new ArrayList<>();
        service(service).path("command").forEach(c -> out.add(c.asText()));
        return out;
    }

    Map<String, String> environment(final String service) {
        final Map<String, String> out = new HashMap<>();
        service(service).path("environment").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    /** The value following a flag in the service's command. */
    Optional<String> flag(final String service, final String flag) {
        final List<String> c = command(service);
        for (int i = 0; i + 1 < c.size(); i++) {
            if (c.get(i).equals(flag)) {
                return Optional.of(c.get(i + 1));
            }
        }
        return Optional.empty();
    }
}
