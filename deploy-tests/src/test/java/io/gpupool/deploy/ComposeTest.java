package io.gpupool.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpupool.cli.Gpupool;
import io.gpupool.cli.config.ConfigLayers;
import io.gpupool.localstack.broker.BrokerLayout;
import io.gpupool.localstack.broker.ServerProperties;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** docker-compose.yml is valid and agrees with the CLI, the topic catalog, prometheus.yml and Grafana's provisioning. */
final class ComposeTest {
    private static ComposeFile compose;
    private static final CommandLine CLI = Gpupool.commandLine();

    @BeforeAll
    static void load() throws Exception {
        compose = ComposeFile.load();
    }

    @Test
    void theServicesOfTheIssue() {
        assertThat(compose.serviceNames()).contains("kafka", "schema-registry", "prometheus", "grafana",
                "collector", "scheduler", "sink", "topics");
        assertThat(compose.service("kafka").path("image").asText()).startsWith("apache/kafka:");
        assertThat(compose.service("schema-registry").path("image").asText()).startsWith("confluentinc/cp-schema-registry:");
        assertThat(compose.service("prometheus").path("image").asText()).startsWith("prom/prometheus:");
        assertThat(compose.service("grafana").path("image").asText()).startsWith("grafana/grafana:");
        assertThat(compose.gpupoolServices()).contains("collector", "scheduler", "sink", "topics");
        assertThat(compose.flag("collector", "--source")).contains("simulated");
    }

    @Test
    void kafkaIsOneKraftNodeOfThePomsVersion() throws Exception {
        final Map<String, String> env = compose.environment("kafka");
        assertThat(env).containsEntry("KAFKA_PROCESS_ROLES", "broker,controller").containsEntry("KAFKA_NODE_ID", "1");
        final Matcher m = Pattern.compile("<kafka.version>([^<]+)</kafka.version>")
                .matcher(Files.readString(RepoFiles.resolve("pom.xml")));
        assertThat(m.find()).isTrue();
        assertThat(compose.service("kafka").path("image").asText()).isEqualTo("apache/kafka:" + m.group(1));
    }

    @Test
    void kafkaWaitsNoLongerThanTheLocalStacksBroker() {
        // a one-broker cluster's waits: the first rebalance, and the abort of a killed scheduler's transaction
        final Map<String, String> local = ServerProperties.render(new BrokerLayout(Path.of("unused")), 9092, 9093, false);
        final Map<String, String> env = compose.environment("kafka");
        for (final String key : List.of("group.initial.rebalance.delay.ms",
                "transaction.abort.timed.out.transaction.cleanup.interval.ms", "offsets.topic.replication.factor",
                "transaction.state.log.replication.factor", "transaction.state.log.min.isr")) {
            final String var = "KAFKA_" + key.toUpperCase(Locale.ROOT).replace('.', '_');
            assertThat(env).as(var).containsEntry(var, local.get(key));
        }
    }

    @Test
    void everyLongRunningServiceHasAHealthCheck() {
        for (final String s : compose.serviceNames()) {
            if (s.equals("topics")) {
                assertThat(compose.service(s).path("restart").asText()).isEqualTo("no");
                continue;
            }
            assertThat(compose.service(s).path("healthcheck").path("test")).as(s + " health check").isNotEmpty();
        }
        for (final String s : compose.gpupoolServices()) {
            final JsonNode deps = compose.service(s).path("depends_on");
            assertThat(deps.has("kafka") || deps.has("schema-registry")).as(s + " waits for Kafka").isTrue();
        }
    }

    @Test
    void grafanaAdminPasswordComesFromTheEnvironment() throws Exception {
        assertThat(compose.environment("grafana")).containsEntry("GF_SECURITY_ADMIN_PASSWORD", "test-only");
        final ProcessRun without = ComposeFile.config(RepoFiles.resolve("docker-compose.yml"), Map.of());
        assertThat(without.exitCode()).as(without.output()).isNotZero();
        assertThat(without.output()).contains("GRAFANA_ADMIN_PASSWORD");
    }

    @Test
    void grafanaIsProvisionedFromTheRepository() throws Exception {
        final List<String> volumes = new ArrayList<>();
        compose.service("grafana").path("volumes").forEach(v -> volumes.add(v.isTextual() ? v.asText()
                : v.path("source").asText() + ":" + v.path("target").asText()));
        final String root = RepoFiles.root().toString();
        assertThat(volumes).anyMatch(v -> v.startsWith(root + "/grafana/provisioning:/etc/grafana/provisioning"))
                .anyMatch(v -> v.startsWith(root + "/grafana/dashboards:" + ComposeFile.GRAFANA_DASHBOARDS_MOUNT));
        final JsonNode ds = new ObjectMapper(new YAMLFactory())
                .readTree(RepoFiles.resolve("grafana/provisioning/datasources/prometheus.yml").toFile());
        assertThat(ds.path("datasources").get(0).path("url").asText()).isEqualTo("http://prometheus:9090");
        assertThat(compose.command("prometheus")).contains("--config.file=/etc/prometheus/prometheus.yml");
        final List<String> promVolumes = new ArrayList<>();
        compose.service("prometheus").path("volumes").forEach(v -> promVolumes.add(v.isTextual() ? v.asText()
                : v.path("source").asText() + ":" + v.path("target").asText()));
        assertThat(promVolumes).anyMatch(v -> v.startsWith(root + "/prometheus:/etc/prometheus"));
    }

    @Test
    void gpupoolCommandsAndFlagsExistInTheCli() {
        final Map<String, CommandLine> sub = CLI.getSubcommands();
        for (final String s : compose.gpupoolServices()) {
            final List<String> command = compose.command(s);
            assertThat(command).as(s + " command").isNotEmpty();
            final String name = command.get(0);
            assertThat(sub).as("compose service " + s + " runs `gpupool " + name + "`, which the CLI does not have")
                    .containsKey(name);
            final CommandLine.Model.CommandSpec spec = sub.get(name).getCommandSpec();
            for (final String arg : command) {
                if (arg.startsWith("--")) {
                    assertThat(spec.findOption(arg)).as(s + ": gpupool " + name + " has no option " + arg).isNotNull();
                }
            }
            for (final String env : compose.environment(s).keySet()) {
                if (env.startsWith(ConfigLayers.ENV_PREFIX)) {
                    final String option = "--" + env.substring(ConfigLayers.ENV_PREFIX.length()).toLowerCase().replace('_', '-');
                    assertThat(spec.findOption(option)).as(s + ": " + env + " sets no option of gpupool " + name).isNotNull();
                    assertThat(ConfigLayers.envName(option.substring(2))).isEqualTo(env);
                }
            }
        }
    }

    @Test
    void gpupoolServicesReachKafkaAndTheRegistryByServiceName() {
        final String advertised = compose.environment("kafka").get("KAFKA_ADVERTISED_LISTENERS");
        final String registryPort = compose.environment("schema-registry").get("SCHEMA_REGISTRY_LISTENERS").replaceAll(".*:", "");
        for (final String s : compose.gpupoolServices()) {
            final Map<String, String> env = compose.environment(s);
            assertThat(env).as(s).containsKey("GPUPOOL_BOOTSTRAP_SERVER");
            assertThat(advertised).as(s).contains("PLAINTEXT://" + env.get("GPUPOOL_BOOTSTRAP_SERVER"));
            env.entrySet().stream().filter(e -> e.getKey().endsWith("REGISTRY_URL")).forEach(e ->
                    assertThat(e.getValue()).as(s + " " + e.getKey()).isEqualTo("http://schema-registry:" + registryPort));
        }
    }

    @Test
    void prometheusScrapesEveryGpupoolServiceOnItsMetricsPort() throws Exception {
        final Map<String, List<String>> targets = PrometheusConfig.staticTargets(RepoFiles.resolve("prometheus/prometheus.yml"));
        final Set<String> scraped = new TreeSet<>();
        for (final Map.Entry<String, List<String>> job : targets.entrySet()) {
            if (!job.getKey().startsWith("gpupool-")) {
                continue;
            }
            for (final String target : job.getValue()) {
                final String host = target.substring(0, target.indexOf(':'));
                final String port = target.substring(target.indexOf(':') + 1);
                assertThat(compose.serviceNames()).as(job.getKey() + " scrapes " + target).contains(host);
                final String served = compose.flag(host, "--metrics-port").or(() -> compose.flag(host, "--http-port"))
                        .orElseThrow(() -> new AssertionError(host + " sets no --metrics-port or --http-port"));
                assertThat(served).as(job.getKey() + " port of " + host).isEqualTo(port);
                scraped.add(host);
            }
        }
        final Set<String> services = new TreeSet<>(compose.gpupoolServices());
        services.remove("topics");
        assertThat(scraped).isEqualTo(services);
    }

    @Test
    void topicNamesInComposeAreTheCatalogs() throws Exception {
        final TopicCatalog catalog = TopicCatalog.defaults();
        final Set<String> names = new TreeSet<>();
        Arrays.stream(Topic.values()).forEach(t -> names.add(catalog.name(t)));
        final String text = Files.readString(RepoFiles.resolve("docker-compose.yml"));
        final Matcher m = Pattern.compile("(?<![\\w.])gpupool\\.[a-z][a-z.-]*[a-z]").matcher(text);
        final Set<String> mentioned = new TreeSet<>();
        while (m.find()) {
            mentioned.add(m.group());
        }
        assertThat(names).isSubsetOf(mentioned);
        assertThat(mentioned).isSubsetOf(names);
        assertThat(compose.command("topics").get(0)).isEqualTo("topics");
        for (final String s : compose.gpupoolServices()) {
            if (!s.equals("topics")) {
                assertThat(compose.service(s).path("depends_on").path("topics").path("condition").asText())
                        .as(s + " starts after the topics exist").isEqualTo("service_completed_successfully");
            }
        }
    }

    @Test
    void dockerfileBuildsTheCliJarOnAJre() throws Exception {
        final String dockerfile = Files.readString(RepoFiles.resolve("Dockerfile"));
        assertThat(dockerfile).containsPattern("(?m)^FROM maven:[^ ]+ AS build$").containsPattern("(?m)^FROM eclipse-temurin:17-jre$");
        final Matcher jar = Pattern.compile("<finalName>([^<]+)</finalName>")
                .matcher(Files.readString(RepoFiles.resolve("gpupool-cli/pom.xml")));
        assertThat(jar.find()).isTrue();
        assertThat(dockerfile).contains("gpupool-cli/target/" + jar.group(1) + ".jar").contains("-pl gpupool-cli -am");
        for (final String s : compose.gpupoolServices()) {
            assertThat(compose.service(s).path("build").path("dockerfile").asText()).isEqualTo("Dockerfile");
        }
        assertThat(Files.readString(RepoFiles.resolve(".dockerignore"))).contains("**/target");
    }
}
