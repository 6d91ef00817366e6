package io.gpupool.scheduler.core;

import java.util.Objects;

/**
 * One host channel adapter (RDMA NIC) of a node.
 *
 * @param name      e.g. "mlx5_0" or "mlx5_bond_0"
 * @param linkLayer InfiniBand or Ethernet (RoCE)
 * @param rail      the rail index in a rail-optimised fabric, -1 when not known
 */
public record HcaSpec(String name, HcaLinkLayer linkLayer, int rail) {
    public HcaSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(linkLayer, "linkLayer");
    }
}
