package io.gpupool.bench.collector;

import io.gpupool.collector.app.LiveCollector;
import io.gpupool.collector.app.LiveOptions;
import io.gpupool.collector.publish.PublisherStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The process the footprint benchmark measures: a live collector exactly as {@code gpupool
 * collector} runs it (child nvidia-smi process, sysfs reads, kernel-log tail, publisher, /metrics),
 * for a fixed time. Arguments: NVIDIA_SMI SYSFS_ROOT KERNEL_LOG BOOTSTRAP REGISTRY_URL SECONDS.
 */
public final class FootprintTarget {
    private FootprintTarget() {
    }

    public static void main(final String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: FootprintTarget NVIDIA_SMI SYSFS_ROOT KERNEL_LOG BOOTSTRAP REGISTRY_URL SECONDS");
            System.exit(2);
        }
        final LiveOptions options = new LiveOptions("bench-node", "default", "nvidia-smi", args[0], null, Path.of(args[1]),
                args[2], null, Duration.ofSeconds(1), args[3], args[4], 0, 20_000, Map.of());
        try (LiveCollector collector = LiveCollector.start(options)) {
            Thread.sleep(Long.parseLong(args[5]) * 1000);
            final PublisherStats s = collector.publisher().stats();
            System.out.println("collector_sent=" + s.sent());
            System.out.println("collector_dropped=" + s.dropped());
            System.out.println("collector_buffered=" + s.buffered());
        }
    }
}
