package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The advice block of {@code /jobs/{id}} as {@code gpupool explain} prints it: each change with its submit flag. */
class PendingAdviceTextTest {

    @Test
    void everyChangeGetsTheFlagThatMakesItAndHoldersTheirExpectedEnd() throws Exception {
        final String out = print("""
                {"view": {"streamTimeMs": 1000000},
                 "advice": {"wouldRunIf": [
                   {"kind": "topology_preferred", "field": "topologyRequired", "from": "true", "to": "false", "text": "one leaf preferred instead of required"},
                   {"kind": "network", "field": "network", "from": "infiniband", "to": "roce", "text": "network roce instead of infiniband"},
                   {"kind": "model", "field": "allowedModels", "from": "H100", "to": "NVIDIA A100 80GB", "text": "GPU model NVIDIA A100 80GB instead of H100"},
                   {"kind": "shorter_estimate", "field": "runtimeEstimateMs", "from": "7200000", "to": "598500", "text": "a shorter estimate"},
                   {"kind": "fewer_nodes", "field": "nodes", "from": "4", "to": "2", "text": "2 nodes of 8 GPUs instead of 4"},
                   {"kind": "fewer_gpus", "field": "gpusPerNode", "from": "8", "to": "4", "text": "4 GPUs instead of 8"}],
                  "waitingFor": [
                   {"jobId": "a", "tenant": "t", "gpuMilli": 16000, "nodes": ["n1", "n2"], "expectedEndMs": 1720000},
                   {"jobId": "b", "tenant": "t", "gpuMilli": 500, "nodes": ["n3"], "expectedEndMs": 1000000},
                   {"jobId": "c", "tenant": "u", "gpuMilli": 1000, "nodes": ["n4"], "expectedEndMs": null}],
                  "waitingForCount": 7, "jobsAhead": ["h1", "h2"], "jobsAheadCount": 2,
                  "notes": ["infiniband is not missing but full: 2 nodes have it, 0 with 8 GPUs free"]}}
                """);
        assertThat(out).contains(
                "  would run now if (any one of):\n",
                "    one leaf preferred instead of required (--topology-mode preferred)\n",
                "    network roce instead of infiniband (--network roce)\n",
                "(--gpu-model 'NVIDIA A100 80GB')\n",
                "    a shorter estimate (--runtime-estimate 598s)\n",
                "(--nodes 2)\n", "(--gpus 4)\n",
                "  waiting for: job a (tenant t, 16 GPUs on n1,n2, ends ~in 12m); job b (tenant t, 500 milli-GPU on n3, "
                        + "ends ~now, past its estimate); job c (tenant u, 1 GPU on n4, no expected end); and 4 more\n",
                "  jobs ahead in the queue: h1, h2\n",
                "  note: infiniband is not missing but full");
    }

    @Test
    void noChangeSaysSoAndAJobWithoutAdvicePrintsNothing() throws Exception {
        assertThat(print("""
                {"view": {"streamTimeMs": 0}, "advice": {"fitsNow": false, "wouldRunIf": [], "waitingFor": [],
                 "waitingForCount": 0, "jobsAhead": [], "jobsAheadCount": 0, "notes": []}}
                """)).isEqualTo("  would run now if: no single change to the request places it now\n"
                + "  waiting for: no running job whose end alone frees its room (see the reason)\n");
        assertThat(print("""
                {"view": {"streamTimeMs": 0}, "advice": {"fitsNow": true, "wouldRunIf": [], "waitingFor": [],
                 "waitingForCount": 0, "jobsAhead": ["h"], "jobsAheadCount": 1, "notes": []}}
                """)).isEqualTo("  would run now if: no single change to the request places it now\n"
                + "  jobs ahead in the queue: h\n");
        assertThat(print("{\"state\": \"placed\"}")).isEmpty();
        assertThat(PendingAdviceText.duration(45_000)).isEqualTo("45s");
        assertThat(PendingAdviceText.duration(3 * 3_600_000 + 5 * 60_000)).isEqualTo("3h05m");
    }

    private static String print(final String json) throws Exception {
        final JsonNode job = new ObjectMapper().readTree(json);
        final StringWriter s = new StringWriter();
        try (PrintWriter out = new PrintWriter(s)) {
            PendingAdviceText.print(out, job);
        }
        return s.toString().replace(System.lineSeparator(), "\n");
    }
}
