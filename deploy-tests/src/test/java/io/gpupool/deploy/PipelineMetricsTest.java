package io.gpupool.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus scrapes the running local pipeline; every dashboard panel query, template
 * variable and alert rule is evaluated through its HTTP API. Each must parse; each panel and
 * variable must return data, except those fed only by the scheduler while it is not on the
 * classpath (printed as PENDING). Panels are evaluated with $pool set to the pipeline's pool, not
 * All, so a series that lacks the pool label leaves its panel empty and fails the test.
 */
final class PipelineMetricsTest {

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void everyPanelVariableAndRuleEvaluatesAgainstTheRunningPipeline(@TempDir final Path dir) throws Exception {
        final Path binary = Binaries.require("prometheus", "prometheus");
        try (LocalPipeline pipeline = LocalPipeline.start(dir.resolve("pipeline"));
             PrometheusServer prometheus = PrometheusServer.start(binary, dir.resolve("prometheus"), pipeline.targets())) {
            assertThat(PrometheusConfig.staticTargets(RepoFiles.resolve("prometheus/prometheus.yml")).keySet())
                    .as("the test scrapes under prometheus.yml's job names").containsAll(pipeline.targets().keySet());
            awaitTargetsUp(prometheus, pipeline.targets().size());
            pipeline.dcgm().reportXid(119);
            final Set<String> pending = pipeline.schedulerRunning() ? Set.of() : MetricNames.FROM_SCHEDULER;
            if (!pipeline.schedulerRunning()) {
                System.out.println("PENDING: " + LocalPipeline.SCHEDULER_MAIN + " is not on the classpath; "
                        + "queries of scheduler metrics are only parsed");
            }

            final Map<String, String> values = new HashMap<>(Dashboards.VARIABLES);
            values.put("$pool", LocalPipeline.POOL);
            final Map<String, String> mustHaveData = new LinkedHashMap<>();
            final Map<String, String> parseOnly = new LinkedHashMap<>();
            for (final Dashboards.Query q : Dashboards.queries()) {
                final boolean waits = MetricNames.in(q.expr()).stream().anyMatch(pending::contains);
                (waits ? parseOnly : mustHaveData).put(q.where(), Dashboards.resolve(q.expr(), values));
            }
            AlertRules.load().expressions().forEach((name, expr) -> parseOnly.put("alert " + name, expr));
            for (final Map.Entry<String, String> e : parseOnly.entrySet()) {
                final JsonNode r = prometheus.query(e.getValue());
                assertThat(r.path("status").asText()).as(e.getKey() + ": " + r.path("error").asText()).isEqualTo("success");
            }
            parseOnly.keySet().stream().filter(k -> !k.startsWith("alert ")).forEach(k -> System.out.println("PENDING: " + k));

            // 30 s: a panel fed by a metric made after the start (a Streams task's) must fill within a few
            // refreshes, not wait for Micrometer's default re-check a minute later
            final List<String> empty = awaitData(prometheus, mustHaveData, 30);
            if (!empty.isEmpty()) {
                System.out.println("metric names Prometheus has: "
                        + prometheus.api("/api/v1/label/__name__/values", Map.of()).path("data"));
            }
            assertThat(empty).as("panels without data").isEmpty();
            assertThat(mustHaveData).as("strict panel queries").hasSizeGreaterThanOrEqualTo(20);
            if (pipeline.schedulerRunning()) {
                assertLeafUplinks(prometheus, pipeline.fleetLeaves(), values);
            }

            final Set<String> known = new TreeSet<>();
            prometheus.api("/api/v1/label/__name__/values", Map.of()).path("data").forEach(n -> known.add(n.asText()));
            final String sources = MainSources.text();
            for (final String name : usedMetricNames()) {
                if (pending.contains(name)) {
                    continue;
                }
                if (MetricNames.ON_FIRST_EVENT.contains(name)) {
                    assertThat(sources.contains("\"" + MetricNames.meterName(name) + "\""))
                            .as(name + " is registered nowhere in the main sources").isTrue();
                } else {
                    assertThat(known).as("metric " + name + " used by a panel or rule is not exposed").contains(name);
                }
            }

            for (final Dashboards.Variable v : Dashboards.variables()) {
                final JsonNode r = prometheus.api("/api/v1/series", Map.of("match[]", Dashboards.resolve(v.selector(), values)));
                assertThat(r.path("status").asText()).as(v.toString()).isEqualTo("success");
                if (MetricNames.in(v.selector()).stream().noneMatch(pending::contains)) {
                    assertThat(r.path("data")).as("series for variable " + v).isNotEmpty();
                    assertThat(r.path("data").findValuesAsText(v.label())).as("values of " + v).isNotEmpty();
                }
            }
        }
    }

    /** The Fabric leaf uplink panel: one ratio per leaf of the fleet, labelled with the pool. */
    private static void assertLeafUplinks(final PrometheusServer prometheus, final Set<String> fleetLeaves,
            final Map<String, String> values) throws Exception {
        final Dashboards.Query panel = Dashboards.queries().stream()
                .filter(q -> q.where().startsWith("fabric.json / Leaf uplink utilisation")).findFirst().orElseThrow();
        final Map<String, Double> byLeaf = new TreeMap<>();
        // The panel has data once one leaf has a figure; the fleet's other leaves follow within a tick.
        await("an uplink figure for every leaf").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    byLeaf.clear();
                    for (final JsonNode r : prometheus.query(Dashboards.resolve(panel.expr(), values))
                            .path("data").path("result")) {
                        assertThat(r.path("metric").path("pool").asText()).as(r.toString()).isEqualTo(LocalPipeline.POOL);
                        byLeaf.put(r.path("metric").path("leaf").asText(), r.path("value").get(1).asDouble());
                    }
                    assertThat(byLeaf.keySet()).as("leaves with an uplink figure").containsAll(fleetLeaves);
                });
        assertThat(byLeaf.values()).allMatch(v -> v >= 0 && v <= 1, "a ratio between 0 and 1");
    }

    private static Set<String> usedMetricNames() throws Exception {
        final Set<String> names = new TreeSet<>();
        Dashboards.queries().forEach(q -> names.addAll(MetricNames.in(q.expr())));
        AlertRules.load().expressions().values().forEach(e -> names.addAll(MetricNames.in(e)));
        Dashboards.variables().forEach(v -> names.addAll(MetricNames.in(v.selector())));
        return names;
    }

    private static void awaitTargetsUp(final PrometheusServer prometheus, final int expected) throws Exception {
        await("every target up").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            final JsonNode targets = prometheus.api("/api/v1/targets", Map.of()).path("data").path("activeTargets");
            int up = 0;
            for (final JsonNode t : targets) {
                up += t.path("health").asText().equals("up") ? 1 : 0;
            }
            assertThat(up).as("targets up: " + targets).isEqualTo(expected);
        });
    }

    /** Re-evaluates until each query returns data or the time is up; the queries still empty. */
    private static List<String> awaitData(final PrometheusServer prometheus, final Map<String, String> queries,
            final int seconds) throws Exception {
        final Map<String, String> left = new LinkedHashMap<>(queries);
        try {
            await("data for every query").atMost(Duration.ofSeconds(seconds)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofSeconds(2)).until(() -> {
                        for (final String where : new ArrayList<>(left.keySet())) {
                            final JsonNode r = prometheus.query(left.get(where));
                            assertThat(r.path("status").asText()).as(where + ": " + r.path("error").asText())
                                    .isEqualTo("success");
                            if (!r.path("data").path("result").isEmpty()) {
                                left.remove(where);
                            }
                        }
                        return left.isEmpty();
                    });
        } catch (final ConditionTimeoutException stillEmpty) {
            // the caller names the queries still empty
        }
        return new ArrayList<>(new TreeSet<>(left.keySet()));
    }
}
