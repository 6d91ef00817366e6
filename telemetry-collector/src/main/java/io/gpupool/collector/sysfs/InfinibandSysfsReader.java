package io.gpupool.collector.sysfs;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads every port under a /sys/class/infiniband tree (root configurable, so a copied tree can be
 * replayed). Unreadable files give null fields, never a failed read of the whole node.
 */
public final class InfinibandSysfsReader {
    /** The counters the collector publishes; the rest of counters/ is not read, to keep a poll cheap. */
    public static final List<String> COUNTERS = List.of(
            "port_xmit_data", "port_rcv_data", "symbol_error", "link_downed", "port_rcv_errors",
            "port_xmit_discards", "port_xmit_wait", "link_error_recovery");
    public static final List<String> HW_COUNTERS = List.of("np_cnp_sent", "rp_cnp_handled", "out_of_buffer");

    private static final Pattern STATE = Pattern.compile("^\\s*\\d+\\s*:\\s*(.+?)\\s*$");
    private static final Pattern RATE = Pattern.compile("^\\s*([0-9.]+)\\s*Gb/sec.*");
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private final Path root;
    private final LongSupplier nanoClock;

    public InfinibandSysfsReader(final Path root) {
        this(root, System::nanoTime);
    }

    public InfinibandSysfsReader(final Path root, final LongSupplier nanoClock) {
        this.root = root;
        this.nanoClock = nanoClock;
    }

    public Path root() {
        return root;
    }

    /** All ports of all devices, in device then port order. An absent root is "no HCAs". */
    public List<PortReading> read() {
        final List<PortReading> ports = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return ports;
        }
        final long now = nanoClock.getAsLong();
        for (final Path device : sortedChildren(root)) {
            final Path portsDir = device.resolve("ports");
            if (!Files.isDirectory(portsDir)) {
                continue;
            }
            final Map<Integer, Path> byNumber = new TreeMap<>();
            for (final Path port : sortedChildren(portsDir)) {
                final String n = port.getFileName().toString();
                if (n.matches("\\d+")) {
                    byNumber.put(Integer.valueOf(n), port);
                }
            }
            for (final Map.Entry<Integer, Path> p : byNumber.entrySet()) {
                ports.add(readPort(device.getFileName().toString(), p.getKey(), p.getValue(), now));
            }
        }
        return ports;
    }

    private static PortReading readPort(final String hca, final int number, final Path port, final long now) {
        final Map<String, Long> counters = new LinkedHashMap<>();
        final Set<String> saturated = new HashSet<>();
        readCounters(port.resolve("counters"), COUNTERS, counters, saturated);
        readCounters(port.resolve("hw_counters"), HW_COUNTERS, counters, saturated);
        return new PortReading(hca, number,
                state(text(port.resolve("state"))),
                physState(text(port.resolve("phys_state"))),
                rate(text(port.resolve("rate"))),
                linkLayer(text(port.resolve("link_layer"))),
                counters, saturated, now);
    }

    private static void readCounters(final Path dir, final List<String> names,
            final Map<String, Long> counters, final Set<String> saturated) {
        for (final String name : names) {
            final String raw = text(dir.resolve(name));
            if (raw == null || !raw.matches("\\d+")) {
                continue; // absent, or "N/A (no PMA)": unknown, not zero
            }
            final BigInteger value = new BigInteger(raw);
            if (value.compareTo(LONG_MAX) > 0) {
                saturated.add(name); // 64-bit counters stuck at 2^64-1
                continue;
            }
            final long v = value.longValue();
            counters.put(name, v);
            if (CounterWidths.isSaturated(name, v)) {
                saturated.add(name);
            }
        }
    }

    static String state(final String text) {
        final String name = stateName(text);
        return name == null ? null : name.replace(' ', '_').toUpperCase(Locale.ROOT);
    }

    static String physState(final String text) {
        final String name = stateName(text);
        if (name == null) {
            return null;
        }
        // "LinkUp" -> LINK_UP, "Polling" -> POLLING, "PortConfigurationTraining" -> PORT_CONFIGURATION_TRAINING
        return name.replaceAll("([a-z])([A-Z])", "$1_$2").replace(' ', '_').toUpperCase(Locale.ROOT);
    }

    private static String stateName(final String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        final Matcher m = STATE.matcher(text);
        return m.matches() ? m.group(1) : text.trim();
    }

    static Double rate(final String text) {
        if (text == null) {
            return null;
        }
        final Matcher m = RATE.matcher(text);
        return m.matches() ? Double.valueOf(m.group(1)) : null;
    }

    static String linkLayer(final String text) {
        if (text == null) {
            return null;
        }
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "infiniband":
                return "INFINIBAND";
            case "ethernet":
                return "ETHERNET";
            default:
                return null;
        }
    }

    private static String text(final Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static List<Path> sortedChildren(final Path dir) {
        final List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            s.forEach(out::add);
        } catch (IOException e) {
            return out;
        }
        out.sort(null);
        return out;
    }
}
