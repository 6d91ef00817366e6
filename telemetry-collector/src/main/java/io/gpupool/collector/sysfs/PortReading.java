package io.gpupool.collector.sysfs;

import java.util.Map;
import java.util.Set;

/**
 * One read of one HCA port from /sys/class/infiniband.
 *
 * @param hca         device name (mlx5_0, mlx5_bond_0)
 * @param state       logical state as the schema names it (ACTIVE, DOWN, INIT, ARMED, ...), null if unreadable
 * @param physState   physical state as the schema names it (LINK_UP, POLLING, DISABLED, ...), null if unreadable
 * @param rateGbps    link rate, null if unreadable
 * @param linkLayer   INFINIBAND or ETHERNET (RoCE), null if unreadable
 * @param counters    counters/ and hw_counters/ values by file name; absent when unreadable ("N/A (no PMA)")
 * @param saturated   names of counters stuck at their width's maximum
 * @param readAtNanos monotonic time of the read, for rates
 */
public record PortReading(String hca, int port, String state, String physState, Double rateGbps,
        String linkLayer, Map<String, Long> counters, Set<String> saturated, long readAtNanos) {
    public PortReading {
        counters = Map.copyOf(counters);
        saturated = Set.copyOf(saturated);
    }

    public Long counter(final String name) {
        return counters.get(name);
    }

    public boolean isRoce() {
        return "ETHERNET".equals(linkLayer);
    }
}
