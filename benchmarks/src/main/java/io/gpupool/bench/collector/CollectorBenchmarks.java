package io.gpupool.bench.collector;

import io.gpupool.bench.BenchWorkDirectory;
import io.gpupool.collector.fake.FakeNvidiaSmi;
import io.gpupool.collector.fake.FakeSysfs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The collector benchmarks, given a running Kafka and registry: each target runs in its own JVM
 * (same classpath, the given JVM flags) so its CPU time and RSS are its own, read from /proc.
 * Figures come back as name=value pairs.
 *
 * <ul>
 * <li>footprint: a live collector polling 8 GPUs (a child-process nvidia-smi stand-in) and the
 *     HCAs of a sysfs tree once per second, publishing to Kafka and serving /metrics;</li>
 * <li>fleet: one process publishing a simulated fleet of N nodes at 1 Hz.</li>
 * </ul>
 */
public final class CollectorBenchmarks {
    private static final long TICKS_PER_SECOND = 100; // USER_HZ, getconf CLK_TCK on Linux

    private CollectorBenchmarks() {
    }

    /** @param sysfsRoot a sysfs tree to read, or null for a generated one with 8 NDR ports */
    public static Map<String, String> footprint(final String bootstrap, final String registry, final Path sysfsRoot,
            final long seconds, final List<String> jvmFlags, final PrintStream progress) throws Exception {
        final Path work = Files.createTempDirectory("gpupool-collector-footprint-");
        try {
            final Path smi = FakeNvidiaSmi.write(work.resolve("smi"), 8);
            final Path sysfs = sysfsRoot != null ? sysfsRoot : FakeSysfs.write(work.resolve("sysfs"), 8);
            final Path kernelLog = work.resolve("kern.log");
            Files.writeString(kernelLog, "");
            final long warmup = 20;
            final List<String> command = javaCommand(jvmFlags, FootprintTarget.class.getName(), smi.toString(),
                    sysfs.toString(), kernelLog.toString(), bootstrap, registry, Long.toString(seconds + warmup));
            return measure(command, warmup, seconds, "footprint", progress);
        } finally {
            BenchWorkDirectory.delete(work);
        }
    }

    public static Map<String, String> fleet(final String bootstrap, final String registry, final int nodes,
            final long seconds, final List<String> jvmFlags, final PrintStream progress) throws Exception {
        final long warmup = 15;
        final List<String> command = javaCommand(jvmFlags, FleetTarget.class.getName(), bootstrap, registry,
                Integer.toString(nodes), Long.toString(seconds + warmup));
        return measure(command, warmup, seconds, "fleet", progress);
    }

    private static List<String> javaCommand(final List<String> flags, final String main, final String... args) {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main);
        command.addAll(List.of(args));
        return command;
    }

    /** Starts the target, lets it warm up, then samples CPU (own + reaped children) and RSS over the window. */
    private static Map<String, String> measure(final List<String> command, final long warmupSeconds, final long seconds,
            final String name, final PrintStream progress) throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final List<String> output = new ArrayList<>();
        final Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    synchronized (output) {
                        output.add(line);
                    }
                }
            } catch (IOException e) {
                // the target ended
            }
        }, "bench-target-output");
        reader.start();
        progress.printf("%s: warming up %d s, then measuring %d s%n", name, warmupSeconds, seconds);
        Thread.sleep(warmupSeconds * 1000);
        final long[] before = cpuTicks(p.pid());
        final long start = System.nanoTime();
        long maxRss = 0;
        long rssSum = 0;
        int rssSamples = 0;
        while (System.nanoTime() - start < seconds * 1_000_000_000L && p.isAlive()) {
            Thread.sleep(1000);
            final long rss = rssKb(p.pid());
            maxRss = Math.max(maxRss, rss);
            rssSum += rss;
            rssSamples++;
        }
        final long[] after = cpuTicks(p.pid());
        final double wall = (System.nanoTime() - start) / 1e9;
        p.waitFor();
        reader.join();
        final double self = (after[0] - before[0]) / (double) TICKS_PER_SECOND;
        final double children = (after[1] - before[1]) / (double) TICKS_PER_SECOND;
        final Map<String, String> figures = new LinkedHashMap<>();
        figures.put(name + "_window_seconds", String.format(Locale.ROOT, "%.0f", wall));
        figures.put(name + "_cpu_percent_of_one_core", String.format(Locale.ROOT, "%.2f", 100 * self / wall));
        figures.put(name + "_cpu_percent_of_one_core_with_child_processes",
                String.format(Locale.ROOT, "%.2f", 100 * (self + children) / wall));
        figures.put(name + "_rss_mb_max", String.format(Locale.ROOT, "%.1f", maxRss / 1024.0));
        figures.put(name + "_rss_mb_mean", String.format(Locale.ROOT, "%.1f", rssSum / 1024.0 / Math.max(1, rssSamples)));
        synchronized (output) {
            for (final String line : output) {
                if (line.matches("[a-z_]+=[^ ]*")) {
                    final int eq = line.indexOf('=');
                    figures.put(line.substring(0, eq), line.substring(eq + 1));
                } else if (line.contains("ERROR") || line.contains("Exception")) {
                    progress.println("target: " + line);
                }
            }
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(name + " target exited with " + p.exitValue() + "; its output: " + output);
        }
        return figures;
    }

    /** utime+stime of the process, and cutime+cstime of its reaped children, in clock ticks. */
    private static long[] cpuTicks(final long pid) throws IOException {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // fields after "(comm) ": state(0) ... utime(11) stime(12) cutime(13) cstime(14)
        return new long[] {Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14])};
    }

    private static long rssKb(final long pid) throws IOException {
        try {
            for (final String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (NoSuchFileException e) {
            return 0; // the target ended early; its exit value tells why
        }
        return 0;
    }
}
