package io.gpupool.collector.bench;

import io.gpupool.localstack.LocalStack;
import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.topics.TopicSetup;
import io.gpupool.topics.TopicCatalog;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Measures the collector's footprint and the simulated fleet's throughput against a real local
 * stack, each target in its own JVM so its CPU time and RSS can be read from /proc. Not a test:
 * run it by hand (see the module README). Prints {@code name=value} figures.
 *
 * <pre>
 * java -cp ... io.gpupool.collector.bench.CollectorBench footprint SYSFS_ROOT [SECONDS] [JVM_FLAGS...]
 * java -cp ... io.gpupool.collector.bench.CollectorBench fleet NODES [SECONDS] [JVM_FLAGS...]
 * </pre>
 */
public final class CollectorBench {
    private static final long TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

    private CollectorBench() {
    }

    public static void main(final String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: CollectorBench footprint SYSFS_ROOT [SECONDS] [JVM_FLAGS...] | fleet NODES [SECONDS] [JVM_FLAGS...]");
            System.exit(2);
        }
        final long seconds = args.length > 2 ? Long.parseLong(args[2]) : 60;
        final List<String> flags = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            flags.add(args[i]);
        }
        final Path work = Files.createTempDirectory("gpupool-collector-bench-");
        try (LocalStack stack = LocalStack.start(LocalStackSettings.defaults(work.resolve("stack")))) {
            final Properties admin = new Properties();
            admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
            try (Admin a = Admin.create(admin)) {
                new TopicSetup(a, Duration.ofSeconds(30)).apply(TopicCatalog.defaults().all(), false);
            }
            final String registry = stack.registryUrl().orElseThrow();
            final List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(flags);
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            if (args[0].equals("footprint")) {
                final Path smi = FakeNvidiaSmi.write(work.resolve("smi"), 8);
                final Path kernelLog = work.resolve("kern.log");
                Files.writeString(kernelLog, "");
                command.addAll(List.of(FootprintTarget.class.getName(), smi.toString(), args[1], kernelLog.toString(),
                        stack.bootstrapServers(), registry, Long.toString(seconds + 20)));
                measure(command, 20, seconds, "footprint");
            } else if (args[0].equals("fleet")) {
                command.addAll(List.of(FleetTarget.class.getName(), stack.bootstrapServers(), registry, args[1],
                        Long.toString(seconds + 15)));
                measure(command, 15, seconds, "fleet");
            } else {
                System.err.println("unknown benchmark '" + args[0] + "': use footprint or fleet");
                System.exit(2);
            }
        }
    }

    /** Starts the target, lets it warm up, then samples CPU (self + reaped children) and RSS over the window. */
    private static void measure(final List<String> command, final long warmupSeconds, final long seconds, final String name)
            throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final List<String> output = new ArrayList<>();
        final Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    synchronized (output) {
                        output.add(line);
                    }
                }
            } catch (java.io.IOException e) {
                // process ended
            }
        });
        reader.start();
        Thread.sleep(warmupSeconds * 1000);
        final long[] before = cpuTicks(p.pid());
        final long start = System.nanoTime();
        long maxRss = 0;
        long rssSum = 0;
        int rssSamples = 0;
        while (System.nanoTime() - start < seconds * 1_000_000_000L) {
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
        System.out.printf("%s_window_seconds=%.0f%n", name, wall);
        System.out.printf("%s_cpu_percent_of_one_core=%.2f%n", name, 100 * self / wall);
        System.out.printf("%s_cpu_percent_of_one_core_with_child_processes=%.2f%n", name, 100 * (self + children) / wall);
        System.out.printf("%s_rss_mb_max=%.1f%n", name, maxRss / 1024.0);
        System.out.printf("%s_rss_mb_mean=%.1f%n", name, rssSum / 1024.0 / Math.max(1, rssSamples));
        synchronized (output) {
            output.stream().filter(l -> l.matches("[a-z_]+=[^ ]*")).forEach(System.out::println);
            output.stream().filter(l -> l.startsWith("timeline ")).limit(15).forEach(l -> System.out.println("# " + l));
            output.stream().filter(l -> l.contains("ERROR") || l.contains("Exception")).limit(5).forEach(l -> System.out.println("# " + l));
        }
    }

    /** utime+stime of the process, and cutime+cstime of its reaped children, in clock ticks. */
    private static long[] cpuTicks(final long pid) throws Exception {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // after the comm field: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
        return new long[] {Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14])};
    }

    private static long rssKb(final long pid) throws Exception {
        for (final String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return 0;
    }
}
