package io.gpupool.collector.live;

import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.nvidiasmi.QueryGpuCsvParser;
import io.gpupool.collector.nvidiasmi.QueryGpuFields;
import io.gpupool.collector.nvidiasmi.TopoMatrix;
import io.gpupool.collector.nvidiasmi.TopoMatrixParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real nvidia-smi as a child process. A hung nvidia-smi (it happens when a GPU is
 * wedged) is killed after the timeout and the poll fails; the next interval tries again.
 */
public final class NvidiaSmiCommand implements GpuSource {
    private final String binary;
    private final Duration timeout;
    private final QueryGpuCsvParser parser = QueryGpuCsvParser.collectorOrder();
    private String driverVersion;
    private boolean driverVersionAsked;

    public NvidiaSmiCommand(final String binary, final Duration timeout) {
        this.binary = binary;
        this.timeout = timeout;
    }

    @Override
    public String name() {
        return "nvidia-smi";
    }

    @Override
    public GpuSnapshot read() throws IOException, InterruptedException {
        final String out = run(List.of("--query-gpu=" + QueryGpuFields.queryArgument(), "--format=csv,noheader,nounits"));
        final GpuSnapshot snapshot = parser.parse("nvidia-smi", out);
        return new GpuSnapshot(snapshot.label(), driverVersion(), snapshot.gpus(), snapshot.warnings());
    }

    /**
     * The driver version for the inventory, asked once: it is not among the polled fields, whose
     * order is the collector's published contract.
     */
    private String driverVersion() throws InterruptedException {
        if (!driverVersionAsked) {
            driverVersionAsked = true;
            try {
                final String out = run(List.of("--query-gpu=driver_version", "--format=csv,noheader")).strip();
                final String first = out.isEmpty() ? "" : out.split("\\R")[0].trim();
                driverVersion = first.matches("\\d+(\\.\\d+)+") ? first : null;
            } catch (IOException e) {
                driverVersion = null;
            }
        }
        return driverVersion;
    }

    /** {@code nvidia-smi topo -m}, read once at start. */
    public TopoMatrix topology() throws IOException, InterruptedException {
        return TopoMatrixParser.parse(run(List.of("topo", "-m")));
    }

    private String run(final List<String> args) throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>();
        command.add(binary);
        command.addAll(args);
        final Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Thread reader = new Thread(() -> copy(p.getInputStream(), out), "nvidia-smi-out");
        reader.setDaemon(true);
        reader.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(binary + " did not answer within " + timeout.toMillis() + " ms");
        }
        reader.join(1_000);
        // A non-zero exit still comes with the rows of the healthy GPUs; the parser skips the error lines.
        return out.toString(StandardCharsets.UTF_8);
    }

    private static void copy(final InputStream in, final ByteArrayOutputStream out) {
        try (in) {
            in.transferTo(out);
        } catch (IOException e) {
            // the process was killed; what was read is kept
        }
    }
}
