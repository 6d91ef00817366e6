package io.gpupool.collector.sysfs;

import java.util.Map;

/**
 * How wide each InfiniBand port counter is in the PortCounters attribute (IBA spec): error
 * counters are 4 to 16 bits and stick at their maximum instead of wrapping; data and packet
 * counters are 32 bits (64 with extended counters) and can stick too. A value at its width's
 * maximum is therefore "at least this much", not a number to turn into a rate.
 */
public final class CounterWidths {
    private static final Map<String, Integer> LEGACY_BITS = Map.ofEntries(
            Map.entry("symbol_error", 16),
            Map.entry("link_error_recovery", 8),
            Map.entry("link_downed", 8),
            Map.entry("port_rcv_errors", 16),
            Map.entry("port_rcv_remote_physical_errors", 16),
            Map.entry("port_rcv_switch_relay_errors", 16),
            Map.entry("port_xmit_discards", 16),
            Map.entry("port_xmit_constraint_errors", 8),
            Map.entry("port_rcv_constraint_errors", 8),
            Map.entry("local_link_integrity_errors", 4),
            Map.entry("excessive_buffer_overrun_errors", 4),
            Map.entry("VL15_dropped", 16),
            Map.entry("port_xmit_data", 32),
            Map.entry("port_rcv_data", 32),
            Map.entry("port_xmit_packets", 32),
            Map.entry("port_rcv_packets", 32),
            Map.entry("port_xmit_wait", 32));

    private static final long MAX_32 = 0xFFFF_FFFFL;

    private CounterWidths() {
    }

    /**
     * True when the value sits at the maximum of the counter's width: its legacy width, or 32 bits
     * for any counter (64-bit saturation is caught where the text is parsed, as it does not fit a long).
     */
    public static boolean isSaturated(final String counter, final long value) {
        final Integer bits = LEGACY_BITS.get(counter);
        if (bits != null && value == (1L << bits) - 1) {
            return true;
        }
        return value == MAX_32;
    }
}
