package io.gpupool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateCommandTest {

    @TempDir
    Path dir;

    private int run(final StringWriter out, final String... args) {
        final CommandLine cli = Gpupool.commandLine();
        cli.setOut(new PrintWriter(out, true));
        return cli.execute(args);
    }

    @Test
    void fgdPrintsOneHeadlinePerPolicyAndWritesTheSummary() throws IOException {
        final Path pods = Files.writeString(dir.resolve("pods.csv"),
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                        + "p0,4000,8192,1,500,,LS,Running,0,1,0\np1,8000,8192,2,1000,,LS,Running,1,2,1\np2,1000,1024,0,0,,BE,Running,2,3,2\n");
        final Path nodes = Files.writeString(dir.resolve("nodes.csv"), "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,4,T4\nn1,32000,65536,2,P100\n");
        final StringWriter out = new StringWriter();
        final int rc = run(out, "simulate", "--protocol", "fgd", "--pods", pods.toString(), "--nodes", nodes.toString(),
                "--seeds", "2", "--policies", "best-fit,fgd", "--out", dir.resolve("out").toString());
        assertThat(rc).isZero();
        assertThat(out.toString().lines()).hasSize(3)
                .anyMatch(l -> l.matches("policy=best-fit alloc_pct_at_100=[\\d.]+ alloc_pct_at_130=[\\d.]+ seeds=2"))
                .anyMatch(l -> l.startsWith("protocol=fgd policies=2 threads=2 elapsed_s="));
        assertThat(dir.resolve("out/summary.md")).isNotEmptyFile();
    }

    @Test
    void missingInputsAndUnknownPoliciesFailWithExitCode2() {
        assertThat(run(new StringWriter(), "simulate", "--protocol", "fgd")).isEqualTo(64);
        assertThat(run(new StringWriter(), "simulate", "--protocol", "philly", "--trace", dir.resolve("none.csv").toString()))
                .isEqualTo(64);
        assertThat(run(new StringWriter(), "simulate", "--protocol", "fgd", "--pods", "a", "--nodes", "b", "--policies", "random"))
                .isEqualTo(64);
    }
}
