package io.gpupool.collector.live;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU and memory of the host, for the inventory. */
public final class HostFacts {
    private HostFacts() {
    }

    public static long cpuMilli() {
        return Runtime.getRuntime().availableProcessors() * 1000L;
    }

    /** MemTotal from /proc/meminfo in MiB, or null where there is no such file. */
    public static Long memoryMiB() {
        try {
            for (final String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }

    public static String hostname() {
        final String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
