package io.gpupool.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The dashboards' JSON: uids, datasource, grid, descriptions, template variables, provisioning. */
final class DashboardStructureTest {

    static String datasourceUid() throws Exception {
        final JsonNode ds = new ObjectMapper(new YAMLFactory())
                .readTree(RepoFiles.resolve("grafana/provisioning/datasources/prometheus.yml").toFile());
        assertThat(ds.path("datasources")).hasSize(1);
        final String uid = ds.path("datasources").get(0).path("uid").asText();
        assertThat(uid).isNotBlank();
        return uid;
    }

    @Test
    void theFourDashboardsWithUniqueUidsAndTitles() throws Exception {
        final List<String> uids = new ArrayList<>();
        final List<String> titles = new ArrayList<>();
        for (final Path f : Dashboards.files()) {
            final JsonNode d = Dashboards.read(f);
            uids.add(d.path("uid").asText());
            titles.add(d.path("title").asText());
            assertThat(d.path("description").asText()).as(f + " description").isNotBlank();
        }
        assertThat(uids).doesNotHaveDuplicates().allMatch(u -> !u.isBlank() && u.length() <= 40)
                .contains("gpupool-pool-overview", "gpupool-gpu-health", "gpupool-fabric", "gpupool-pipeline");
        assertThat(titles).doesNotHaveDuplicates();
    }

    @Test
    void everyPanelAndQueryUsesTheProvisionedDatasource() throws Exception {
        final String uid = datasourceUid();
        for (final Path f : Dashboards.files()) {
            final JsonNode d = Dashboards.read(f);
            for (final JsonNode p : Dashboards.panels(d)) {
                if (p.path("type").asText().equals("row")) {
                    continue;
                }
                final String where = f.getFileName() + " / " + p.path("title").asText();
                assertThat(p.path("datasource").path("uid").asText()).as(where).isEqualTo(uid);
                assertThat(p.path("targets")).as(where + " has no query").isNotEmpty();
                for (final JsonNode t : p.path("targets")) {
                    assertThat(t.path("datasource").path("uid").asText()).as(where).isEqualTo(uid);
                    assertThat(t.path("expr").asText()).as(where).isNotBlank();
                }
            }
            for (final JsonNode v : d.path("templating").path("list")) {
                assertThat(v.path("datasource").path("uid").asText()).as(f + " variable " + v.path("name")).isEqualTo(uid);
            }
        }
    }

    @Test
    void panelsHaveUniqueIdsADescriptionAndFitTheGrid() throws Exception {
        for (final Path f : Dashboards.files()) {
            final JsonNode d = Dashboards.read(f);
            final Set<Integer> ids = new HashSet<>();
            final List<int[]> boxes = new ArrayList<>();
            for (final JsonNode p : Dashboards.panels(d)) {
                final String where = f.getFileName() + " / " + p.path("title").asText();
                assertThat(p.path("title").asText()).as(f + " panel title").isNotBlank();
                assertThat(ids.add(p.path("id").asInt(-1))).as(where + " duplicate id").isTrue();
                assertThat(p.path("description").asText()).as(where + " description").isNotBlank();
                final JsonNode g = p.path("gridPos");
                final int x = g.path("x").asInt(-1);
                final int y = g.path("y").asInt(-1);
                final int w = g.path("w").asInt(0);
                final int h = g.path("h").asInt(0);
                assertThat(x).as(where).isGreaterThanOrEqualTo(0);
                assertThat(y).as(where).isGreaterThanOrEqualTo(0);
                assertThat(w).as(where).isPositive();
                assertThat(h).as(where).isPositive();
                assertThat(x + w).as(where + " runs past the 24 columns").isLessThanOrEqualTo(24);
                for (final int[] b : boxes) {
                    final boolean overlap = x < b[0] + b[2] && b[0] < x + w && y < b[1] + b[3] && b[1] < y + h;
                    assertThat(overlap).as(where + " overlaps another panel").isFalse();
                }
                boxes.add(new int[] {x, y, w, h});
            }
        }
    }

    @Test
    void everyVariableFiltersAPanelOfItsDashboardAndEveryVariableUsedIsDefinedThere() throws Exception {
        final Pattern used = Pattern.compile("\\$(?!__)(\\w+)");
        final Set<String> everywhere = new HashSet<>();
        for (final Path f : Dashboards.files()) {
            final JsonNode d = Dashboards.read(f);
            final Set<String> defined = new HashSet<>();
            for (final JsonNode v : d.path("templating").path("list")) {
                defined.add(v.path("name").asText());
                assertThat(v.path("query").path("query").asText()).as(f + " variable " + v.path("name"))
                        .startsWith("label_values(");
            }
            final Set<String> filtering = new HashSet<>();
            for (final JsonNode p : Dashboards.panels(d)) {
                for (final JsonNode t : p.path("targets")) {
                    final Matcher m = used.matcher(t.path("expr").asText());
                    while (m.find()) {
                        filtering.add(m.group(1));
                    }
                }
            }
            // a variable no panel reads only looks like a filter (the tenant variable once sat on every dashboard)
            assertThat(filtering).as(f + ": variables its panels read").isEqualTo(defined);
            everywhere.addAll(defined);
        }
        assertThat(everywhere).contains("pool", "node", "model", "tenant");
        for (final Dashboards.Query q : Dashboards.queries()) {
            assertThat(q.resolved()).as(q.where() + " uses an unknown variable").doesNotContain("$");
        }
        for (final Dashboards.Variable v : Dashboards.variables()) {
            assertThat(Dashboards.resolve(v.selector(), Dashboards.VARIABLES)).as(v + " uses an unknown variable")
                    .doesNotContain("$");
        }
    }

    @Test
    void poolOverviewShowsSharesAgainstTheTargetBandAndWhoHoldsWhat() throws Exception {
        final JsonNode d = Dashboards.read(RepoFiles.resolve("grafana/dashboards/pool-overview.json"));
        final Map<String, JsonNode> byTitle = new HashMap<>();
        Dashboards.panels(d).forEach(p -> byTitle.put(p.path("title").asText(), p));
        for (final String share : List.of("Allocation share", "Busy share")) {
            final JsonNode p = byTitle.get(share);
            assertThat(p).as(share).isNotNull();
            assertThat(p.path("fieldConfig").path("defaults").path("unit").asText()).isEqualTo("percent");
            final List<Double> steps = new ArrayList<>();
            p.path("fieldConfig").path("defaults").path("thresholds").path("steps")
                    .forEach(s -> steps.add(s.path("value").isNull() ? Double.NEGATIVE_INFINITY : s.path("value").asDouble()));
            assertThat(steps).as(share + " thresholds").contains(70.0, 80.0);
        }
        assertThat(byTitle.get("Allocated but idle: by tenant, job and node").path("targets").get(0).path("expr").asText())
                .contains("gpupool_gpus_allocated_idle", "tenant", "job_id", "node");
        assertThat(byTitle.get("GPUs held per tenant against its quota").path("targets").toString())
                .contains("gpupool_tenant_gpus", "gpupool_tenant_quota_gpus");
        assertThat(byTitle.get("Queue wait by tenant").path("targets").toString())
                .contains("gpupool_queue_wait_seconds_bucket", "tenant");
    }

    /**
     * A collector series (per GPU, per port) named by a panel or variable, with its label matchers
     * if any: by metric name, or by {@code __name__} inside the braces.
     */
    private static final Pattern COLLECTOR_SELECTOR = Pattern.compile(
            "\\{__name__=~\"gpupool_(?:gpu|ib_port)_[^}]*}|(?<![\\w\"|])gpupool_(?:gpu|ib_port)_[a-z0-9_]*[a-z0-9](\\{[^}]*})?");

    @Test
    void perGpuAndPerPortSeriesAreFilteredByThePoolVariable() throws Exception {
        final List<String> where = new ArrayList<>();
        final List<String> exprs = new ArrayList<>();
        Dashboards.queries().forEach(q -> {
            where.add(q.where());
            exprs.add(q.expr());
        });
        for (final Dashboards.Variable v : Dashboards.variables()) {
            where.add(v.toString());
            exprs.add(v.selector());
        }
        int seen = 0;
        for (int i = 0; i < exprs.size(); i++) {
            final Matcher m = COLLECTOR_SELECTOR.matcher(exprs.get(i));
            while (m.find()) {
                assertThat(m.group()).as(where.get(i) + ": collector series not filtered by pool").contains("pool=~\"$pool\"");
                seen++;
            }
        }
        assertThat(seen).as("collector series in the dashboards").isGreaterThan(20);
    }

    @Test
    void providerLoadsTheDashboardsFolder() throws Exception {
        final JsonNode p = new ObjectMapper(new YAMLFactory())
                .readTree(RepoFiles.resolve("grafana/provisioning/dashboards/gpupool.yml").toFile());
        assertThat(p.path("providers").get(0).path("type").asText()).isEqualTo("file");
        assertThat(p.path("providers").get(0).path("options").path("path").asText())
                .isEqualTo(ComposeFile.GRAFANA_DASHBOARDS_MOUNT);
    }
}
