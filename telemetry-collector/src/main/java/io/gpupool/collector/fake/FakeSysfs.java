package io.gpupool.collector.fake;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A /sys/class/infiniband stand-in with N active NDR ports (the shape and counter set of the real
 * H100 tree), so the footprint benchmark runs anywhere. Counters are fixed: a read costs the same
 * whatever their values.
 */
public final class FakeSysfs {
    private static final String[] COUNTERS = {"port_xmit_data", "port_rcv_data", "symbol_error", "link_downed",
        "port_rcv_errors", "port_xmit_discards", "port_xmit_wait", "link_error_recovery", "port_xmit_packets",
        "port_rcv_packets"};
    private static final String[] HW_COUNTERS = {"out_of_buffer", "out_of_sequence", "rnr_nak_retry_err"};

    private FakeSysfs() {
    }

    public static Path write(final Path root, final int hcas) throws IOException {
        for (int i = 0; i < hcas; i++) {
            final Path port = root.resolve("mlx5_" + i).resolve("ports").resolve("1");
            Files.createDirectories(port.resolve("counters"));
            Files.createDirectories(port.resolve("hw_counters"));
            Files.writeString(port.resolve("state"), "4: ACTIVE\n");
            Files.writeString(port.resolve("phys_state"), "5: LinkUp\n");
            Files.writeString(port.resolve("rate"), "400 Gb/sec (4X NDR)\n");
            Files.writeString(port.resolve("link_layer"), "InfiniBand\n");
            for (final String c : COUNTERS) {
                Files.writeString(port.resolve("counters").resolve(c), (c.endsWith("data") ? "230442669431839" : "0") + "\n");
            }
            for (final String c : HW_COUNTERS) {
                Files.writeString(port.resolve("hw_counters").resolve(c), "0\n");
            }
        }
        return root;
    }
}
