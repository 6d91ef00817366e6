package io.gpupool.scheduler.core;

/** The link layer of a host channel adapter, as sysfs {@code link_layer} reports it. */
public enum HcaLinkLayer {
    INFINIBAND,
    /** "Ethernet" in sysfs: RDMA over Converged Ethernet. */
    ETHERNET
}
