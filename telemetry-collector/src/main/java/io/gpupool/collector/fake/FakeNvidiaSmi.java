package io.gpupool.collector.fake;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A stand-in nvidia-smi for machines without a GPU: a shell script that prints fixed
 * {@code --query-gpu} rows (the H100 capture's loaded values, for N GPUs) and a DGX-like
 * {@code topo -m}. The collector runs it as a real child process, exactly as it runs nvidia-smi,
 * which is what the CPU and memory benchmark has to measure.
 */
public final class FakeNvidiaSmi {
    private static final String[] BUS = {"18", "1B", "2A", "3A", "5D", "9A", "AB", "BA"};
    private static final String[] NICS = {"mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9", "mlx5_bond_0"};

    private FakeNvidiaSmi() {
    }

    /** Writes {@code nvidia-smi}, {@code query.csv} and {@code topo.txt} into dir; returns the script. */
    public static Path write(final Path dir, final int gpus) throws IOException {
        Files.createDirectories(dir);
        final StringBuilder csv = new StringBuilder();
        for (int i = 0; i < gpus; i++) {
            csv.append(String.format(Locale.ROOT, "%d, GPU-%08d-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, "
                    + "00000000:%s:00.0, 100, 11, 81559, 19818, 59, 631.95, 700.00, 1980, 0, No, No, [N/A], Disabled%n",
                    i, i, BUS[i % BUS.length]));
        }
        Files.writeString(dir.resolve("query.csv"), csv, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("topo.txt"), topo(gpus), StandardCharsets.UTF_8);
        final Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\ncase \"$1\" in\n  topo) cat \"" + dir.resolve("topo.txt") + "\" ;;\n"
                + "  --query-gpu=driver_version) echo 590.48.01 ;;\n  *) cat \""
                + dir.resolve("query.csv") + "\" ;;\nesac\n", StandardCharsets.UTF_8);
        if (!script.toFile().setExecutable(true)) {
            throw new IOException("cannot make " + script + " executable");
        }
        return script;
    }

    private static String topo(final int gpus) {
        final StringBuilder t = new StringBuilder("\t\u001B[4m");
        for (int i = 0; i < gpus; i++) {
            t.append("GPU").append(i).append('\t');
        }
        for (int n = 0; n < NICS.length; n++) {
            t.append("NIC").append(n).append('\t');
        }
        t.append("CPU Affinity\tNUMA Affinity\tGPU NUMA ID\u001B[0m\n");
        for (int i = 0; i < gpus; i++) {
            t.append("GPU").append(i);
            for (int j = 0; j < gpus; j++) {
                t.append('\t').append(i == j ? " X " : "NV18");
            }
            for (int n = 0; n < NICS.length; n++) {
                t.append('\t').append(n == i ? "PIX" : "SYS");
            }
            t.append(i < gpus / 2 ? "\t0-55,112-167\t0\t\tN/A\n" : "\t56-111,168-223\t1\t\tN/A\n");
        }
        for (int n = 0; n < NICS.length; n++) {
            t.append("NIC").append(n);
            for (int j = 0; j < gpus; j++) {
                t.append('\t').append(n == j ? "PIX" : "SYS");
            }
            for (int m = 0; m < NICS.length; m++) {
                t.append('\t').append(n == m ? " X " : "SYS");
            }
            t.append('\n');
        }
        t.append("\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n\nNIC Legend:\n\n");
        for (int n = 0; n < NICS.length; n++) {
            t.append("  NIC").append(n).append(": ").append(NICS[n]).append('\n');
        }
        return t.toString();
    }
}
